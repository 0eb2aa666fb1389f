// Phases 1 and 2 of the planner: reductions and matmuls anchor groups; elementwise nodes
// join the group whose member they read when they live in its space.
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "fusion/attention.h"
#include "fusion/planner_state.h"

namespace tessel::fusion_internal {

namespace {

Shape ReducedShape(const Shape& space, const std::vector<int64_t>& axes, bool keep) {
  Shape::Dims dims;
  for (int d = 0; d < space.rank(); ++d) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), d);
    if (!reduced) dims.push_back(space[d]);
    if (reduced && keep) dims.push_back(1);
  }
  return Shape(dims);
}

// Sum `n` as an online partner of the max in group `g` (see OnlineSum): n sums exp(y - shift)
// where shift is g's max of y or where(isfinite(max), max, c), in f32 or f64 throughout (the
// running rescale must not round through a half type), and y does not read g. Every node
// looked through is checked to be in the program first: one realized earlier has dropped
// its inputs.
std::optional<OnlineSum> OnlinePartner(const PlannerState& s, const Node* n, int g) {
  const Group& group = s.groups[g];
  auto member = [&](const Node* x) { return s.IsMember(x) && s.group_of[s.Index(x)] == g; };
  const Node* e = n->inputs()[0].get();
  if (n->op() != OpKind::kSum || e->op() != OpKind::kExp || !s.InProgram(e)) return std::nullopt;
  const Node* sub = e->inputs()[0].get();
  if (sub->op() != OpKind::kSub || !s.InProgram(sub)) return std::nullopt;
  const Node* y = sub->inputs()[0].get();
  const Node* shift = sub->inputs()[1].get();
  const DType t = e->dtype();
  if ((t != DType::kF32 && t != DType::kF64) || sub->dtype() != t || y->dtype() != t ||
      y->shape() != group.space || !member(shift)) {
    return std::nullopt;
  }
  if (s.InProgram(y) && (s.IsMember(y) || s.floating_deps[s.Index(y)].contains(g))) {
    return std::nullopt;
  }
  // The terms stay inside the pass: none may have to be written (an output, a matmul operand,
  // a value at the depth limit).
  for (const Node* term : {e, sub}) {
    if (s.outputs.contains(term) || s.depth_cut[s.Index(term)]) return std::nullopt;
    for (const Node* c : s.consumers[s.Index(term)]) {
      if (c->op() == OpKind::kMatmul) return std::nullopt;
    }
  }
  const Node* max = shift;
  if (shift->op() == OpKind::kWhere) {  // where(isfinite(m), m, c)
    const Node* finite = shift->inputs()[0].get();
    max = shift->inputs()[1].get();
    if (finite->op() != OpKind::kIsFinite || !s.InProgram(finite) ||
        finite->inputs()[0].get() != max || shift->input(2).op() != OpKind::kFull ||
        shift->dtype() != t) {
      return std::nullopt;
    }
  }
  if (!member(max) || max->op() != OpKind::kMax || max->inputs()[0].get() != y ||
      max->dtype() != t) {
    return std::nullopt;
  }
  return OnlineSum{n, max, shift};
}

// The longest row of `space` reduced over `axes` a group holds on chip, so that elementwise
// members over whole rows may join. Columns (ReadsColumns) are held 32 at a time, rows by a
// block or, when they are few, by the blocks of a cluster; 8-byte values take twice the
// registers.
int64_t StagedLimit(const FusionOptions& o, const Shape& space, const std::vector<int64_t>& axes,
                    DType dtype) {
  const bool wide = DTypeSize(dtype) == 8;
  if (ReadsColumns(space, axes)) {
    const int64_t warp_wide = wide ? o.max_staged_column / 2 : o.max_staged_column;
    if (o.cluster_blocks == 1) return warp_wide;
    // Longer columns: ColumnWidth of them a block, split over a cluster's blocks.
    return std::max(warp_wide, BlockValues(wide) / ColumnWidth(dtype) * o.cluster_blocks);
  }
  const int64_t rows = ReducedShape(space, axes, true).numel();
  if (o.cluster_blocks == 1 || rows >= o.cluster_rows_below) return o.max_staged_row;
  return (wide ? o.max_staged_row / 2 : o.max_staged_row) * o.cluster_blocks;
}

// The reductions among a group's members.
int ReductionsIn(const Group& group) {
  return static_cast<int>(std::count_if(
      group.members.begin(), group.members.end(),
      [](const Node* m) { return GetOpInfo(m->op()).category == OpCategory::kReduce; }));
}

void PlaceReduction(PlannerState& s, const Node* n) {
  const Shape& space = n->input(0).shape();
  const std::vector<int64_t>& axes = n->attrs().ints;
  const Deps deps = DepsOf(s, n);
  if (s.options.fuse) {
    // Latest compatible group first: a chained reduction (reading the group) or a sibling.
    for (int g = static_cast<int>(s.groups.size()) - 1; g >= 0; --g) {
      const Group& group = s.groups[g];
      if (group.is_gemm || group.alone || group.space != space) continue;
      if (ReductionsIn(group) >= s.options.max_group_reductions) continue;  // full
      if (group.axes != axes) {
        s.refusals.push_back({n, g, "reduction axes differ"});
        continue;
      }
      const bool chained = deps.All().contains(g);
      std::string refusal;
      if (chained && !group.staged) {
        // (Column reductions keep no running pair: their sums stay kernels of their own.)
        std::optional<OnlineSum> online;
        if (!ReadsColumns(space, axes)) online = OnlinePartner(s, n, g);
        if (online) {
          Deps others = deps;
          others.via_floating.erase(g);  // the sum reads the shift online, in the same pass
          if (JoinRefusal(s, g, others).empty()) {
            s.groups[g].online_sums.push_back(*online);
            s.online_terms.insert(n->inputs()[0].get());
            s.online_terms.insert(n->input(0).inputs()[0].get());
            return Join(s, n, g, deps);
          }
        }
        // Chaining needs the row kept on chip between the two reductions.
        refusal = absl::StrCat(ReadsColumns(space, axes) ? "columns of " : "rows of ",
                               space.numel() / group.reduced_keep.numel(),
                               " elements are too long to hold on chip");
      } else {
        refusal = JoinRefusal(s, g, deps);
      }
      if (refusal.empty()) return Join(s, n, g, deps);
      s.refusals.push_back({n, g, refusal});
    }
  }
  Group group;
  group.space = space;
  group.axes = axes;
  group.reduced_keep = ReducedShape(space, axes, true);
  group.reduced_drop = ReducedShape(space, axes, false);
  const int64_t row = space.numel() / std::max<int64_t>(1, group.reduced_keep.numel());
  group.held = s.held_rows.contains(n);
  group.staged = group.held || row <= StagedLimit(s.options, space, axes, n->input(0).dtype());
  group.fits_block = row <= s.options.max_staged_row;
  group.deps = deps.All();
  const int g = NewGroup(s, std::move(group));
  s.groups[g].members.push_back(n);
  s.group_of[s.Index(n)] = g;
}

void PlaceAlone(PlannerState& s, const Node* n, KernelKind kind) {
  Group group;
  group.alone = true;
  group.alone_kind = kind;
  group.space = n->shape();
  group.axes = n->attrs().ints;
  group.deps = DepsOf(s, n).All();
  const int g = NewGroup(s, std::move(group));
  s.groups[g].members.push_back(n);
  s.group_of[s.Index(n)] = g;
}

// Attention chains, found before anything is placed: their members other than the output
// wait for it. A matmul that reads a softmax but is no attention chain keeps the reason. A
// k^T that several chains' scores read stays unwritten only where each of them is a chain.
void FindAttentionChains(PlannerState& s,
                         std::vector<std::pair<const Node*, std::string>>* misses) {
  std::vector<AttentionMatch> found;
  for (const Node* n : s.nodes) {
    if (n->op() != OpKind::kMatmul) continue;
    std::string why_not;
    std::optional<AttentionMatch> m = MatchAttention(s, n, &why_not);
    if (m) {
      found.push_back(*std::move(m));
    } else if (!why_not.empty()) {
      misses->emplace_back(n, why_not);
    }
  }
  // Drop one chain at a time whose k^T something other than a kept chain's scores reads.
  while (true) {
    absl::flat_hash_set<const Node*> scores;
    for (const AttentionMatch& m : found) scores.insert(m.scores);
    const auto shared = std::find_if(found.begin(), found.end(), [&](const AttentionMatch& m) {
      const std::vector<const Node*>& readers = s.consumers[s.Index(m.k_t)];
      return std::any_of(readers.begin(), readers.end(),
                         [&](const Node* c) { return !scores.contains(c); });
    });
    if (shared == found.end()) break;
    misses->emplace_back(shared->output, "k^T is also read by a matmul that is no attention");
    found.erase(shared);
  }
  for (const AttentionMatch& m : found) {
    for (const Node* x : m.members) {
      if (x != m.output) s.attention_members.insert(x);
    }
    s.attention_chains[m.output] = AttentionChain{m.members, m.scores, m.logits};
    s.attention_views.insert(m.views.begin(), m.views.end());
    s.attention_view_stops.insert(m.view_stops.begin(), m.view_stops.end());
  }
}

// The chain ending at matmul `n`, as one group; it reads what its members read outside it.
void PlaceAttention(PlannerState& s, const Node* n) {
  Group group;
  group.alone = true;
  group.alone_kind = KernelKind::kAttention;
  group.space = n->shape();
  group.attention = s.attention_chains.at(n);
  for (const Node* member : group.attention.members) {
    const absl::flat_hash_set<int> deps = DepsOf(s, member).All();
    group.deps.insert(deps.begin(), deps.end());
  }
  const int g = NewGroup(s, std::move(group));
  for (const Node* member : s.groups[g].attention.members) {
    s.groups[g].members.push_back(member);
    s.group_of[s.Index(member)] = g;
  }
}

void PlaceMatmul(PlannerState& s, const Node* n) {
  Group group;
  group.is_gemm = true;
  group.space = n->shape();
  group.deps = DepsOf(s, n).All();
  group.matmuls = {n};
  const int g = NewGroup(s, std::move(group));
  s.groups[g].members.push_back(n);
  s.group_of[s.Index(n)] = g;
}

// An attention kernel stores its output through the GEMM epilogue (codegen/attention_codegen):
// elementwise work over the output's shape joins it as it joins a GEMM.
bool TakesEpilogue(const Group& group) {
  return group.alone && group.alone_kind == KernelKind::kAttention;
}

// Whether elementwise `n` lives in group `g`'s space; sets *row when over whole rows.
bool FitsGroup(const Group& group, const Node* n, bool* row) {
  *row = false;
  if (group.is_gemm || TakesEpilogue(group)) return n->shape() == group.space;
  if (n->shape() == group.space && group.staged) return *row = true;
  return n->shape() == group.reduced_keep || n->shape() == group.reduced_drop;
}

// Whether a value of group `g`'s reduced space, of shape `operand`, broadcast into `consumer`
// is read at the consumer's own row: NumPy aligns trailing axes, which follows the kept
// axes when the reduced axes stay (extent 1) or are the leading ones.
bool ReadsOwnRow(const Group& g, const Shape& operand, const Shape& consumer) {
  if (g.is_gemm || operand == consumer || operand == g.reduced_keep) return true;
  if (operand != g.reduced_drop) return true;  // a row-space value
  for (size_t i = 0; i < g.axes.size(); ++i) {
    if (g.axes[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// Sets n's inline depth from its inputs'; whether it reaches the limit (or is a part of a
// concat of many operands) and is written.
bool CutsDepth(PlannerState& s, const Node* n) {
  int depth = 0;
  for (const NodePtr& in : n->inputs()) {
    if (s.InProgram(in.get())) depth = std::max(depth, s.inline_depth[s.Index(in.get())]);
  }
  depth += InlineCost(*n);
  const int i = s.Index(n);
  s.depth_cut[i] =
      s.options.fuse && (depth >= s.options.max_inline_depth || IsWrittenConcatPart(s, n));
  s.inline_depth[i] = s.depth_cut[i] ? 0 : depth;
  return s.depth_cut[i];
}

void PlaceElementwise(PlannerState& s, const Node* n) {
  const Deps deps = DepsOf(s, n);
  const bool cut = CutsDepth(s, n);
  // A reduction over extent-1 axes only (keepdim=false after a keepdim one) is a reshape.
  const bool elementwise =
      GetOpInfo(n->op()).category == OpCategory::kElementwise || IsDegenerateReduction(*n);
  if (s.options.fuse && elementwise && !cut) {
    // Row groups first (normalization), then GEMM epilogues; latest first.
    std::vector<int> candidates(deps.direct.begin(), deps.direct.end());
    std::sort(candidates.begin(), candidates.end(), [&](int a, int b) {
      if (s.groups[a].is_gemm != s.groups[b].is_gemm) return !s.groups[a].is_gemm;
      return a > b;
    });
    for (int g : candidates) {
      if (s.groups[g].alone && !TakesEpilogue(s.groups[g])) {
        s.refusals.push_back({n, g,
                              absl::StrCat("the ", KernelKindName(s.groups[g].alone_kind),
                                           " kernel writes only its own result (no epilogue)")});
        continue;
      }
      bool row = false;
      std::string refusal = JoinRefusal(s, g, deps);
      if (refusal.empty() && !FitsGroup(s.groups[g], n, &row)) {
        refusal = s.groups[g].staged || s.groups[g].is_gemm || TakesEpilogue(s.groups[g])
                      ? absl::StrCat("its shape ", n->shape().ToString(),
                                     " is not the kernel's iteration space")
                      : "the reduced rows are too long to hold on chip";
      }
      for (const NodePtr& in : n->inputs()) {
        const bool member = s.IsMember(in.get()) && s.group_of[s.Index(in.get())] == g;
        if (refusal.empty() && member && !ReadsOwnRow(s.groups[g], in->shape(), n->shape())) {
          refusal = absl::StrCat("it broadcasts ", in->shape().ToString(), " to ",
                                 n->shape().ToString(), " across the reduced axes");
        }
      }
      if (refusal.empty()) {
        if (row) s.groups[g].row_members = true;
        return Join(s, n, g, deps);
      }
      s.refusals.push_back({n, g, refusal});
    }
  }
  s.floating_deps[s.Index(n)] = deps.All();
}

// A widening cast at the end of a group (bf16 -> f32 before the next kernel) leaves the
// group: the group then writes the narrow value and the consumers widen it as they read.
void DemoteWideningCasts(PlannerState& s) {
  for (Group& group : s.groups) {
    std::vector<const Node*> kept;
    for (const Node* n : group.members) {
      bool read_inside = false;
      for (const Node* c : s.consumers[s.Index(n)]) {
        read_inside = read_inside || s.group_of[s.Index(c)] == s.group_of[s.Index(n)];
      }
      const bool widening = n->op() == OpKind::kCast &&
                            DTypeSize(n->dtype()) > DTypeSize(n->input(0).dtype()) &&
                            s.IsMember(n->inputs()[0].get());
      if (widening && !read_inside && !s.outputs.contains(n)) {
        s.floating_deps[s.Index(n)] = {s.group_of[s.Index(n)]};
        s.group_of[s.Index(n)] = -1;
      } else {
        kept.push_back(n);
      }
    }
    group.members = std::move(kept);
  }
}

}  // namespace

bool IsWrittenConcatPart(const PlannerState& s, const Node* n) {
  if (n->op() != OpKind::kConcat) return false;
  const int operands = static_cast<int>(n->inputs().size());
  for (const Node* reader : s.consumers[s.Index(n)]) {
    if (reader->op() == OpKind::kConcat &&
        operands + static_cast<int>(reader->inputs().size()) - 1 > s.options.max_concat_operands) {
      return true;
    }
  }
  return false;
}

void AssignGroups(PlannerState& s) {
  std::vector<std::pair<const Node*, std::string>> misses;
  if (s.options.fuse && s.options.attention) FindAttentionChains(s, &misses);
  for (const Node* n : s.nodes) {
    if (s.attention_members.contains(n)) continue;  // placed with its chain's output
    if (s.attention_chains.contains(n)) {
      PlaceAttention(s, n);
      continue;
    }
    switch (GetOpInfo(n->op()).category) {
      case OpCategory::kReduce:
        // One element per result, or none: inlined like elementwise work.
        IsDegenerateReduction(*n) || CombinesNothing(*n) ? PlaceElementwise(s, n)
                                                         : PlaceReduction(s, n);
        break;
      case OpCategory::kMatmul:
        CombinesNothing(*n) ? PlaceElementwise(s, n) : PlaceMatmul(s, n);
        break;
      case OpCategory::kScan:
        PlaceAlone(s, n, KernelKind::kScan);
        break;
      case OpCategory::kSort:
        PlaceAlone(s, n, KernelKind::kSort);
        break;
      case OpCategory::kScatter:
        PlaceAlone(s, n, KernelKind::kScatter);
        break;
      default:
        PlaceElementwise(s, n);
        break;
    }
  }
  if (s.options.fuse) DemoteWideningCasts(s);
  for (const auto& [n, why] : misses) {  // explain() says why such a chain runs unfused
    s.refusals.push_back({n, s.group_of[s.Index(n)], absl::StrCat("no attention kernel: ", why)});
  }
}

}  // namespace tessel::fusion_internal
