// Phase 3b of the planner: GEMMs of the same A, and independent GEMMs, in one kernel
// (codegen/gemm_sm90_codegen.cc).
// - Dual: two matmuls of the same A and output shape whose results meet elementwise (SwiGLU's
//   silu(x wg) * (x wu)) become one group computing both products for each output tile; the
//   epilogue combines them and neither is written.
// - Siblings: other matmuls of the same A (the q, k and v projections of one x) become one
//   group whose tile walk covers every sibling's output columns, reading each band of A rows
//   once for all of them, each sibling with its own B and epilogue.
// - Grouped: independent matmuls left (the experts of a mixture of experts, any M, N, K)
//   become one group whose persistent walk covers every problem's tiles: one launch, and
//   the small problems' tiles fill the SMs the others leave idle.
// The phase runs after the writes are chosen, so that it sees operands as the kernels read
// them (views read through); the planner chooses the writes again after a dual merge.
#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "fusion/planner_state.h"
#include "ops/cuda_expr.h"

namespace tessel::fusion_internal {
namespace {

// A matmul operand as its kernel reads it: the buffer below the unwritten views that the
// kernel reads through (codegen's OperandOf), and whether those swap its last two axes.
struct StoredOperand {
  const Node* buffer;
  bool transposed = false;
};

StoredOperand StoredOf(const PlannerState& s, const Node* operand) {
  StoredOperand o{operand};
  while (s.InProgram(o.buffer) && !s.written[s.Index(o.buffer)] && IsMatmulOperandView(*o.buffer)) {
    o.transposed ^= SwapsLastTwoAxes(*o.buffer);
    o.buffer = o.buffer->inputs()[0].get();
  }
  return o;
}

// Whether group g's kernel may evaluate an op whose CUDA code keeps a stack frame (f64 sin
// and cos: codegen's CallsWithStack; NVRTC cannot compile those into the Hopper kernel): a
// member, or a floating value a member reads, which the kernel inlines unless it is written
// (whatever the writes decide: a merge can unwrite a value two groups read).
bool CallsWithStack(const PlannerState& s, int g) {
  std::vector<const Node*> stack = s.groups[g].members;
  absl::flat_hash_set<const Node*> seen(stack.begin(), stack.end());
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!n->inputs().empty() && CudaExprCallsWithStack(n->op(), n->input(0).dtype())) return true;
    for (const NodePtr& in : n->inputs()) {
      if (s.InProgram(in.get()) && !s.IsMember(in.get()) && seen.insert(in.get()).second) {
        stack.push_back(in.get());
      }
    }
  }
  return false;
}

// Why the GEMM group `g` cannot be a sibling part, or "": the Hopper kernel takes it as it
// takes one GEMM without staging (16-bit operands whose rows are 16-byte multiples, rank 2),
// and calls nothing with a stack frame (CallsWithStack).
std::string PartRefusal(const PlannerState& s, int g) {
  const Node* mm = s.groups[g].matmuls[0];
  const DType t = mm->input(0).dtype();
  if (!IsHalfFloat(t) || mm->input(1).dtype() != t) {
    return absl::StrCat("its operands are ", DTypeName(t), " and ", DTypeName(mm->input(1).dtype()),
                        " (sibling GEMMs take bf16 or f16)");
  }
  if (mm->shape().rank() != 2) return "it is batched (sibling GEMMs are 2-D)";
  for (int i = 0; i < 2; ++i) {
    const Node* buffer = StoredOf(s, mm->inputs()[i].get()).buffer;
    const Shape& shape = buffer->shape();
    if (shape.rank() != 2) return absl::StrCat(i == 0 ? "A" : "B", " is a batched buffer");
    if (shape[1] * DTypeSize(t) % 16 != 0) {
      return absl::StrCat(i == 0 ? "A" : "B", "'s rows of ", shape[1], " ", DTypeName(t),
                          " values are not 16-byte multiples (staged alone)");
    }
  }
  if (CallsWithStack(s, g)) {
    return "its epilogue calls f64 sin or cos (a stack frame, which the Hopper kernel cannot hold)";
  }
  return "";
}

// A 2-D GEMM's extents.
struct Problem {
  int64_t m, n, k;
};

Problem ProblemOf(const Node* matmul) {
  return {matmul->shape()[0], matmul->shape()[1], matmul->input(0).shape()[1]};
}

// An estimate of one launch of GEMMs (an H100: 132 SMs, 650 TFLOP/s dense 16-bit, 3 TB/s,
// 4 us a launch), in microseconds: its waves of nominal 128-wide tiles or its bytes,
// whichever take longer. A is read once for all where `shared_a`, else once a GEMM.
double LaunchMicros(const std::vector<Problem>& problems, bool shared_a) {
  constexpr double kSms = 132, kFlopsPerUs = 650e6, kBytesPerUs = 3e6, kLaunchUs = 4;
  int64_t bm = 64, bn = 128;
  for (const Problem& p : problems) bm = p.m <= 64 ? bm : 128;
  double tiles = 0, tile_us = 0, bytes = 0;
  for (const Problem& p : problems) {
    const double t =
        std::ceil(static_cast<double>(p.m) / bm) * std::ceil(static_cast<double>(p.n) / bn);
    tiles += t;
    tile_us += t * 2.0 * bm * bn * p.k / (kFlopsPerUs / kSms);
    bytes += (shared_a && &p != &problems[0] ? 0 : p.m * p.k * 2.0) + (p.k + p.m) * p.n * 2.0;
  }
  // Whole waves of the average tile.
  return kLaunchUs + std::max(std::ceil(tiles / kSms) * tile_us / tiles, bytes / kBytesPerUs);
}

class GemmGrouper {
 public:
  static constexpr size_t kOpenGroups = 4;

  explicit GemmGrouper(PlannerState& s) : s_(s) {}

  // Returns whether any groups merged.
  bool Run() {
    FindDuals();
    // GEMM groups by the node they read as A, in program order.
    absl::flat_hash_map<const Node*, std::vector<int>> by_a;
    std::vector<const Node*> order;
    for (size_t g = 0; g < s_.groups.size(); ++g) {
      if (!IsSingleGemm(g)) continue;
      const Node* a = s_.groups[g].matmuls[0]->inputs()[0].get();
      if (!by_a.contains(a)) order.push_back(a);
      by_a[a].push_back(static_cast<int>(g));
    }
    for (const Node* a : order) {
      if (by_a[a].size() > 1) GroupGreedily(by_a[a], GemmForm::kSiblings);
    }
    // The GEMMs left, each a legal part: grouped. (The others have their reasons noted
    // where a sibling was refused; a GEMM alone is the common case and needs none.)
    std::vector<int> rest;
    for (size_t g = 0; g < s_.groups.size(); ++g) {
      if (IsSingleGemm(g) && PartRefusal(s_, g).empty()) rest.push_back(static_cast<int>(g));
    }
    if (rest.size() > 1) GroupGreedily(rest, GemmForm::kGrouped);
    return merged_;
  }

 private:
  // A GEMM group u whose epilogue reads, at its own positions, a member of an earlier GEMM
  // group g of the same A: the two become one dual GEMM group.
  void FindDuals() {
    for (size_t u = 0; u < s_.groups.size(); ++u) {
      if (!IsSingleGemm(u)) continue;
      const Node* up = s_.groups[u].matmuls[0];
      std::optional<int> meets;
      for (const Node* n : s_.groups[u].members) {
        if (n == up) continue;  // an operand is no meeting (DualRefusal)
        for (const NodePtr& in : n->inputs()) {
          if (!s_.IsMember(in.get())) continue;
          const int g = s_.group_of[s_.Index(in.get())];
          if (g != static_cast<int>(u) && IsSingleGemm(g) &&
              s_.groups[g].matmuls[0]->inputs()[0] == up->inputs()[0]) {
            meets = meets.value_or(g);
          }
        }
      }
      if (!meets) continue;
      std::string why = PartRefusal(s_, *meets);
      if (why.empty()) why = PartRefusal(s_, static_cast<int>(u));
      if (why.empty()) why = DualRefusal(*meets, static_cast<int>(u));
      if (!why.empty()) {
        s_.refusals.push_back({up, *meets, absl::StrCat("no dual GEMM: ", why)});
        continue;
      }
      Merge(*meets, static_cast<int>(u));
      s_.groups[*meets].gemm_form = GemmForm::kDual;
    }
  }

  bool IsSingleGemm(int g) const {
    const Group& group = s_.groups[g];
    return group.is_gemm && !group.merged && group.matmuls.size() == 1;
  }

  // Why GEMM group u, whose epilogue reads GEMM group g's values, cannot compute both as a
  // dual GEMM, or "".
  std::string DualRefusal(int g, int u) const {
    const Node* first = s_.groups[g].matmuls[0];
    const Node* second = s_.groups[u].matmuls[0];
    if (first->shape() != second->shape()) return "their output shapes differ";
    if (first->dtype() != second->dtype() || first->input(1).dtype() != second->input(1).dtype()) {
      return "their dtypes differ";
    }
    if (StoredOf(s_, first->inputs()[1].get()).transposed !=
        StoredOf(s_, second->inputs()[1].get()).transposed) {
      return "one B is stored the other way round (K- against N-major)";
    }
    for (const Node* n : s_.groups[u].members) {
      for (const NodePtr& in : n->inputs()) {
        const bool through_view = s_.InProgram(in.get()) && !s_.IsMember(in.get()) &&
                                  s_.floating_deps[s_.Index(in.get())].contains(g);
        const bool direct = s_.IsMember(in.get()) && s_.group_of[s_.Index(in.get())] == g;
        if (n == second && (through_view || direct)) {
          return "its operand is the other's result (a chain, not a pair)";
        }
        if (through_view) {
          return "its epilogue reads the other product at other positions (through a view)";
        }
      }
    }
    for (int d : s_.groups[u].deps) {
      if (d != g && s_.GroupReaches(d, g)) return "another kernel reads one and feeds the other";
    }
    return "";
  }

  // Greedy, in program order: each GEMM joins the first open group it may join. Siblings
  // note every refusal; grouped GEMMs only those of dtype, layout, the parts limit and cost (that
  // dependent GEMMs run apart goes without saying).
  void GroupGreedily(const std::vector<int>& candidates, GemmForm form) {
    std::vector<int> open;
    for (int g : candidates) {
      const std::string refusal = PartRefusal(s_, g);
      if (!refusal.empty()) {  // one note, against a sibling it would have joined
        const int other = candidates[0] != g ? candidates[0] : candidates[1];
        s_.refusals.push_back({s_.groups[g].matmuls[0], other, refusal});
        continue;
      }
      bool joined = false;
      for (int into : open) {
        const bool dependent = s_.GroupReaches(into, g) || s_.GroupReaches(g, into);
        const std::string why =
            dependent ? "one reads what the other computes" : PairRefusal(into, g, form);
        if (why.empty()) {
          Merge(into, g);
          s_.groups[into].gemm_form = form;
          joined = true;
          break;
        }
        if (form == GemmForm::kSiblings || !dependent) {
          s_.refusals.push_back({s_.groups[g].matmuls[0], into, why});
        }
      }
      if (!joined) open.push_back(g);
      // GEMMs near each other in the program only: a bounded search (a program of hundreds of
      // GEMMs plans in linear time), and no merge that keeps an early GEMM waiting, and its
      // buffers alive, for a much later one.
      if (open.size() > kOpenGroups) open.erase(open.begin());
    }
  }

  // Why independent GEMM group g may not join group `into` of `form`, or "".
  std::string PairRefusal(int into, int g, GemmForm form) const {
    const Group& group = s_.groups[into];
    const Node* mm = s_.groups[g].matmuls[0];
    const Node* first = group.matmuls[0];
    if (mm->dtype() != first->dtype() || mm->input(1).dtype() != first->input(1).dtype()) {
      return "its dtypes differ from the kernel's other GEMMs'";
    }
    for (int i : {0, 1}) {
      if (StoredOf(s_, mm->inputs()[i].get()).transposed !=
          StoredOf(s_, first->inputs()[i].get()).transposed) {
        return absl::StrCat("its ", i == 0 ? "A" : "B",
                            " is stored the other way round (K- against M- or N-major) from the "
                            "kernel's other GEMMs'");
      }
    }
    if (static_cast<int>(group.matmuls.size()) >= s_.options.max_gemm_parts) {
      return absl::StrCat("the kernel serves ", group.matmuls.size(), " GEMMs already");
    }
    const bool shared_a = form == GemmForm::kSiblings;
    std::vector<Problem> problems;
    double apart = 0;
    for (const Node* x : group.matmuls) problems.push_back(ProblemOf(x));
    problems.push_back(ProblemOf(mm));
    for (const Problem& p : problems) apart += LaunchMicros({p}, false);
    const double together = LaunchMicros(problems, shared_a);
    if (together > apart) {
      return absl::StrFormat("one launch (about %.0f us) would take longer than %d (%.0f us)",
                             together, problems.size(), apart);
    }
    return "";
  }

  // Moves GEMM group `from` into `into`.
  void Merge(int into, int from) {
    merged_ = true;
    Group& to = s_.groups[into];
    Group& gone = s_.groups[from];
    for (const Node* n : gone.members) s_.group_of[s_.Index(n)] = into;
    to.members.insert(to.members.end(), gone.members.begin(), gone.members.end());
    std::sort(to.members.begin(), to.members.end(),
              [&](const Node* x, const Node* y) { return s_.Index(x) < s_.Index(y); });
    to.matmuls.insert(to.matmuls.end(), gone.matmuls.begin(), gone.matmuls.end());
    to.deps.insert(gone.deps.begin(), gone.deps.end());
    to.deps.erase(into);
    to.deps.erase(from);
    gone.members.clear();
    gone.matmuls.clear();
    gone.deps.clear();
    gone.merged = true;
    for (Group& g : s_.groups) {
      if (g.deps.erase(from) > 0) g.deps.insert(into);
    }
    for (auto& deps : s_.floating_deps) {
      if (deps.erase(from) > 0) deps.insert(into);
    }
    for (Refusal& r : s_.refusals) {
      if (r.group == from) r.group = into;
    }
  }

  PlannerState& s_;
  bool merged_ = false;
};

}  // namespace

bool GroupGemms(PlannerState& s) {
  return s.options.fuse && s.options.gemm_groups && GemmGrouper(s).Run();
}

}  // namespace tessel::fusion_internal
