// Phase 4 of the planner: kernels from groups and written values, pointwise merges, order.
#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "fusion/planner_state.h"

namespace tessel::fusion_internal {
namespace {

// A kernel under construction: what it owns (writes, and for groups every member).
struct Proto {
  int group = -1;                  // -1: pointwise
  std::vector<const Node*> owned;  // written values, plus group members
  bool dead = false;               // merged into another proto
};

class KernelBuilder {
 public:
  explicit KernelBuilder(PlannerState& s) : s_(s) {}

  FusionPlan Build() {
    MakeProtos();
    MergePointwise(/*same_shape=*/true);
    MergePointwise(/*same_shape=*/false);
    return Emit();
  }

 private:
  void MakeProtos() {
    protos_.resize(s_.groups.size());
    for (size_t g = 0; g < s_.groups.size(); ++g) {
      protos_[g].group = static_cast<int>(g);
      protos_[g].owned = s_.groups[g].members;
      protos_[g].dead = s_.groups[g].merged;
    }
    for (size_t i = 0; i < s_.nodes.size(); ++i) {
      if (s_.group_of[i] < 0 && s_.written[i]) {
        protos_.push_back(Proto{-1, {s_.nodes[i]}, false});
      }
    }
    RecomputeOwners();
    cost_.assign(protos_.size(), 0);
    for (size_t k = 0; k < protos_.size(); ++k) {
      if (protos_[k].dead || protos_[k].group >= 0) continue;
      std::vector<const Node*> computed;
      Walk(
          static_cast<int>(k), [](const Node*) {}, &computed);
      for (const Node* n : computed) cost_[k] += InlineCost(*n);
    }
  }

  void RecomputeOwners() {
    owner_.clear();
    for (size_t k = 0; k < protos_.size(); ++k) {
      if (protos_[k].dead) continue;
      for (const Node* n : protos_[k].owned) owner_[n] = static_cast<int>(k);
    }
  }

  // The kernels whose values proto k reads (excluding itself).
  absl::flat_hash_set<int> DepsOf(int k) const {
    absl::flat_hash_set<int> deps;
    Walk(
        k, [&](const Node* read) { deps.insert(owner_.at(read)); }, nullptr);
    deps.erase(k);
    return deps;
  }

  // Visits proto k's cone: on_read for values read from other kernels; the nodes computed here
  // appended to `computed` (producers first), where not null.
  template <typename Read>
  void Walk(int k, Read on_read, std::vector<const Node*>* computed) const {
    absl::flat_hash_set<const Node*> seen;
    std::vector<std::pair<const Node*, size_t>> stack;
    for (const Node* root : protos_[k].owned) {
      if (!seen.insert(root).second) continue;
      stack.emplace_back(root, 0);
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (next < node->inputs().size()) {
          const Node* in = node->inputs()[next++].get();
          if (!s_.InProgram(in) || !seen.insert(in).second) continue;
          auto it = owner_.find(in);
          const bool elsewhere = it != owner_.end() && it->second != k;
          if (elsewhere) {
            on_read(in);
          } else {
            stack.emplace_back(in, 0);
          }
          continue;
        }
        if (computed != nullptr) computed->push_back(node);
        stack.pop_back();
      }
    }
  }

  // Whether `to` is reachable from `from` through at least one other kernel.
  bool IndirectPath(int from, int to, const std::vector<absl::flat_hash_set<int>>& deps) const {
    std::vector<int> stack;
    absl::flat_hash_set<int> seen;
    for (int d : deps[from]) {
      if (d != to && seen.insert(d).second) stack.push_back(d);
    }
    while (!stack.empty()) {
      const int k = stack.back();
      stack.pop_back();
      if (k == to) return true;
      for (int d : deps[k]) {
        if (seen.insert(d).second) stack.push_back(d);
      }
    }
    return false;
  }

  std::vector<Shape> Segments(int k) const {
    std::vector<Shape> shapes;
    for (const Node* n : protos_[k].owned) {
      if (std::find(shapes.begin(), shapes.end(), n->shape()) == shapes.end()) {
        shapes.push_back(n->shape());
      }
    }
    return shapes;
  }

  void MergePointwise(bool same_shape) {
    if (!s_.options.fuse) return;
    // Dependencies between protos, kept up to date as they merge.
    std::vector<absl::flat_hash_set<int>> deps(protos_.size());
    for (size_t k = 0; k < protos_.size(); ++k) {
      if (!protos_[k].dead) deps[k] = DepsOf(static_cast<int>(k));
    }
    for (size_t a = 0; a < protos_.size(); ++a) {
      if (protos_[a].dead || protos_[a].group >= 0) continue;
      for (size_t b = a + 1; b < protos_.size(); ++b) {
        if (protos_[b].dead || protos_[b].group >= 0) continue;
        const std::vector<Shape> sa = Segments(a), sb = Segments(b);
        if ((sa == sb) != same_shape) continue;
        if (!same_shape && sa.size() + sb.size() > static_cast<size_t>(s_.options.max_segments)) {
          continue;
        }
        if (!WithinSize(a, b) || IndirectPath(a, b, deps) || IndirectPath(b, a, deps)) continue;
        // A kernel that reads a value written for its depth would compute it inline again.
        if ((deps[a].contains(b) && OwnsDepthCut(b)) || (deps[b].contains(a) && OwnsDepthCut(a))) {
          continue;
        }
        Merge(a, b, deps);
      }
    }
  }

  // Whether one kernel of protos a and b stays within the size bounds (FusionOptions): their
  // outputs and the inline cost of what they compute (shared values counted twice).
  bool WithinSize(int a, int b) const {
    return protos_[a].owned.size() + protos_[b].owned.size() <=
               static_cast<size_t>(s_.options.max_pointwise_outputs) &&
           cost_[a] + cost_[b] <= s_.options.max_pointwise_cost;
  }

  bool OwnsDepthCut(int k) const {
    return std::any_of(protos_[k].owned.begin(), protos_[k].owned.end(),
                       [&](const Node* n) { return s_.depth_cut[s_.Index(n)]; });
  }

  // Moves proto b into a.
  void Merge(size_t a, size_t b, std::vector<absl::flat_hash_set<int>>& deps) {
    protos_[a].owned.insert(protos_[a].owned.end(), protos_[b].owned.begin(),
                            protos_[b].owned.end());
    std::sort(protos_[a].owned.begin(), protos_[a].owned.end(),
              [&](const Node* x, const Node* y) { return s_.Index(x) < s_.Index(y); });
    protos_[b].dead = true;
    cost_[a] += cost_[b];
    for (const Node* n : protos_[b].owned) owner_[n] = static_cast<int>(a);
    deps[a].insert(deps[b].begin(), deps[b].end());
    deps[a].erase(static_cast<int>(a));
    deps[a].erase(static_cast<int>(b));
    deps[b].clear();
    for (auto& d : deps) {
      if (d.erase(static_cast<int>(b)) > 0) d.insert(static_cast<int>(a));
    }
    deps[a].erase(static_cast<int>(a));
  }

  FusedKernel ToKernel(int k) const {
    FusedKernel kernel;
    const Proto& proto = protos_[k];
    std::vector<const Node*> computed;
    absl::flat_hash_set<const Node*> inputs;
    Walk(
        k, [&](const Node* read) { inputs.insert(read); }, &computed);
    std::sort(computed.begin(), computed.end(),
              [&](const Node* x, const Node* y) { return s_.Index(x) < s_.Index(y); });
    kernel.nodes = computed;
    for (const Node* n : computed) {
      for (const NodePtr& in : n->inputs()) {
        if (in->shape().numel() == 0) continue;  // nothing to read
        const bool leaf = !s_.InProgram(in.get());
        if ((leaf || inputs.contains(in.get())) &&
            std::find(kernel.inputs.begin(), kernel.inputs.end(), in.get()) ==
                kernel.inputs.end()) {
          kernel.inputs.push_back(in.get());
        }
      }
    }
    for (const Node* n : proto.owned) {
      if (s_.written[s_.Index(n)]) {
        kernel.outputs.push_back(n);
        kernel.notes.push_back(absl::StrCat("writes {n}: ", s_.write_reason[s_.Index(n)]));
        kernel.notes_nodes.push_back(n);
      }
    }
    if (proto.group < 0) {
      kernel.kind = KernelKind::kPointwise;
      kernel.segments = Segments(k);
      return kernel;
    }
    const Group& group = s_.groups[proto.group];
    if (group.alone) {
      kernel.kind = group.alone_kind;
      kernel.row_space = group.space;
      kernel.reduced_axes = group.axes;
      if (kernel.kind == KernelKind::kAttention) {
        const AttentionChain& a = group.attention;
        kernel.matmul = a.members.back();
        kernel.scores = a.scores;
        kernel.logits = a.logits;
        kernel.work_tickets = s_.options.work_tickets;
        kernel.split_merge = s_.options.split_merge;
      }
    } else if (group.is_gemm) {
      kernel.kind = KernelKind::kGemm;
      kernel.matmul = group.matmuls[0];
      kernel.gemm_parts = group.matmuls;
      kernel.gemm_form = group.gemm_form;
      if (group.gemm_form == GemmForm::kDual) {
        kernel.notes.push_back(
            "{n} reads the same A as the GEMM it meets in the epilogue: one dual GEMM computes "
            "both for each output tile, neither written");
        kernel.notes_nodes.push_back(group.matmuls[1]);
      }
      for (size_t i = 1; i < group.matmuls.size() && group.gemm_form == GemmForm::kGrouped; ++i) {
        kernel.notes.push_back(absl::StrCat("{n} runs in one launch with ",
                                            group.matmuls.size() - 1, " independent GEMM",
                                            group.matmuls.size() > 2 ? "s" : ""));
        kernel.notes_nodes.push_back(group.matmuls[i]);
      }
      for (size_t i = 1; i < group.matmuls.size() && group.gemm_form == GemmForm::kSiblings; ++i) {
        kernel.notes.push_back(absl::StrCat("{n} reads the same A as ", group.matmuls.size() - 1,
                                            " other GEMM", group.matmuls.size() > 2 ? "s" : "",
                                            " of this kernel: one launch reads A once"));
        kernel.notes_nodes.push_back(group.matmuls[i]);
      }
    } else {
      kernel.kind = group.row_members ? KernelKind::kNormalization : KernelKind::kReduction;
      kernel.row_space = group.space;
      kernel.reduced_axes = group.axes;
      // A kernel of reductions only (no row members) whose rows one block holds may still
      // hold them: long columns keep their column schedule, but a plan that takes a varying
      // batch as an argument falls back to a block per row (codegen).
      kernel.staged = group.staged || (!group.row_members && group.fits_block);
      kernel.held_row_bytes = group.held ? s_.options.held_row_bytes : 0;
      kernel.cluster_blocks = s_.options.cluster_blocks;
      kernel.column_cluster_blocks = s_.options.column_cluster_blocks;
      kernel.column_tile_columns = s_.options.column_tile_columns;
      kernel.column_tile_length = s_.options.column_tile_length;
      kernel.online_sums = group.online_sums;
      for (const OnlineSum& o : group.online_sums) {
        kernel.notes.push_back(absl::StrCat(
            "{n} accumulates online with the max of the same rows: each row is read once"));
        kernel.notes_nodes.push_back(o.sum);
      }
    }
    return kernel;
  }

  FusionPlan Emit() {
    std::vector<int> live;
    for (size_t k = 0; k < protos_.size(); ++k) {
      if (!protos_[k].dead) live.push_back(static_cast<int>(k));
    }
    // Kahn's algorithm; among ready kernels the one whose first node comes first.
    absl::flat_hash_map<int, absl::flat_hash_set<int>> deps;
    for (int k : live) deps[k] = DepsOf(k);
    auto first = [&](int k) {
      int m = 1 << 30;
      for (const Node* n : protos_[k].owned) m = std::min(m, s_.Index(n));
      return m;
    };
    FusionPlan plan;
    absl::flat_hash_map<int, int> position;  // proto -> kernel index
    while (position.size() < live.size()) {
      int best = -1;
      for (int k : live) {
        if (position.contains(k)) continue;
        bool ready = true;
        for (int d : deps[k]) ready = ready && position.contains(d);
        if (ready && (best < 0 || first(k) < first(best))) best = k;
      }
      TESSEL_CHECK(best >= 0, "the kernel graph has a cycle");
      position[best] = static_cast<int>(plan.kernels.size());
      plan.kernels.push_back(ToKernel(best));
    }
    for (int k : live) {
      FusedKernel& kernel = plan.kernels[position[k]];
      for (int d : deps[k]) kernel.depends_on.push_back(position[d]);
      std::sort(kernel.depends_on.begin(), kernel.depends_on.end());
    }
    AddRefusalNotes(plan, position);
    return plan;
  }

  void AddRefusalNotes(FusionPlan& plan, const absl::flat_hash_map<int, int>& position) {
    for (const Refusal& r : s_.refusals) {
      // A group that became no kernel (its values empty or constant) refused nothing that
      // runs: a softmax of no elements before a matmul of K = 0 left the near-miss note of an
      // attention without a kernel.
      const auto group = position.find(r.group);
      if (group == position.end()) continue;
      const int target = group->second;
      // The note goes to the kernel that computes the refused node, or to the group's.
      const auto it = owner_.find(r.node);
      const auto owner = it != owner_.end() ? position.find(it->second) : position.end();
      const int k = owner != position.end() ? owner->second : target;
      plan.kernels[k].notes.push_back(
          absl::StrCat("{n} not fused into kernel ", target, ": ", r.reason));
      plan.kernels[k].notes_nodes.push_back(r.node);
    }
  }

  PlannerState& s_;
  std::vector<Proto> protos_;
  std::vector<int> cost_;  // pointwise protos: the inline cost of the nodes each computes
  absl::flat_hash_map<const Node*, int> owner_;
};

}  // namespace

FusionPlan BuildKernels(PlannerState& state) { return KernelBuilder(state).Build(); }

}  // namespace tessel::fusion_internal
