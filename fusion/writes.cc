// Phase 3 of the planner: which values are written to memory, and why. Walks consumers
// before producers so that each value knows every kernel that evaluates it.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "fusion/planner_state.h"

namespace tessel::fusion_internal {
namespace {

// Where a value is evaluated: a group id, or kRootBase + program index for a written
// floating value (its own pointwise kernel until kernels merge), or kHost for the caller.
constexpr int kHost = -1;
constexpr int kRootBase = 1 << 30;

bool IsAttentionMatmul(const PlannerState& s, const Node* n) {
  return n->op() == OpKind::kMatmul &&
         (s.attention_chains.contains(n) || s.attention_members.contains(n));
}

// A view the kernels reading it read in place, so that it costs no copy: a GEMM reads a
// transpose or a reshape of the batch axes (IsMatmulOperandView) as tensor cores take either
// layout; an attention kernel reads q, k^T and v through the views whose strides it can
// follow (fusion/attention.h), where only attention kernels read them.
bool IsReadThrough(const PlannerState& s, const Node* n, const std::vector<bool>& read_through) {
  if (s.outputs.contains(n) || s.consumers[s.Index(n)].empty()) return false;
  const bool attention = s.attention_views.contains(n) && !s.attention_view_stops.contains(n);
  if (!attention && !IsMatmulOperandView(*n)) return false;
  for (const Node* c : s.consumers[s.Index(n)]) {
    const bool view = read_through[s.Index(c)];
    const bool attention_reader =
        IsAttentionMatmul(s, c) || (view && s.attention_views.contains(c));
    const bool gemm_reader = (c->op() == OpKind::kMatmul && !IsAttentionMatmul(s, c)) ||
                             (view && !s.attention_views.contains(c));
    if (!(attention ? attention_reader : gemm_reader)) return false;
  }
  return true;
}

}  // namespace

void ChooseWrites(PlannerState& s) {
  const int n = static_cast<int>(s.nodes.size());
  // Inline cost of each floating value's cone, producers first (shared subcones count
  // once per path: an estimate).
  std::vector<int> cost(n, 0);
  // Values computed from positions and constants alone (a mask of arange or tril): an
  // attention kernel that recomputes one sees its bands (codegen/attention_band.h) and skips
  // the key tiles it masks, where a written one is data.
  std::vector<bool> index_only(n, false);
  for (int i = 0; i < n; ++i) {
    const Node* node = s.nodes[i];
    if (s.group_of[i] >= 0) continue;
    cost[i] = InlineCost(*node);
    index_only[i] = node->op() == OpKind::kArange || node->op() == OpKind::kFull ||
                    GetOpInfo(node->op()).category == OpCategory::kElementwise ||
                    GetOpInfo(node->op()).category == OpCategory::kView;
    for (const NodePtr& in : node->inputs()) {
      const bool computed = s.InProgram(in.get()) && !s.IsMember(in.get());
      if (computed) cost[i] = std::min(1 << 20, cost[i] + cost[s.Index(in.get())]);
      index_only[i] = index_only[i] && computed && index_only[s.Index(in.get())];
    }
  }
  auto attention_site = [&](const absl::flat_hash_set<int>& sites) {
    for (int g : sites) {
      if (g >= 0 && g < kRootBase && s.groups[g].alone &&
          s.groups[g].alone_kind == KernelKind::kAttention) {
        return true;
      }
    }
    return false;
  };

  std::vector<absl::flat_hash_set<int>> evaluated_in(n);
  std::vector<bool> operand_memory(n, false);  // the input of a view read through
  std::vector<bool> read_through(n, false);    // a view read through (IsReadThrough)
  for (int i = n - 1; i >= 0; --i) {
    const Node* node = s.nodes[i];
    absl::flat_hash_set<int> sites;
    if (s.outputs.contains(node)) sites.insert(kHost);
    bool matmul_operand = operand_memory[i];
    for (const Node* c : s.consumers[i]) {
      const absl::flat_hash_set<int>& where = evaluated_in[s.Index(c)];
      sites.insert(where.begin(), where.end());
      matmul_operand = matmul_operand || c->op() == OpKind::kMatmul;
    }
    std::string& reason = s.write_reason[i];
    const int group = s.group_of[i];
    if (group >= 0) {
      s.written[i] = sites.size() > 1 || !sites.contains(group);
      if (s.outputs.contains(node)) {
        reason = "program output";
      } else if (s.written[i]) {
        reason = matmul_operand ? "matmul operand" : "read by another kernel";
      }
      evaluated_in[i] = {group};
      continue;
    }
    if (s.options.fuse && !s.depth_cut[i] && IsReadThrough(s, node, read_through)) {
      read_through[i] = true;
      const Node* in = node->inputs()[0].get();
      if (s.InProgram(in)) operand_memory[s.Index(in)] = true;
      s.written[i] = false;
      evaluated_in[i] = std::move(sites);
      continue;
    }
    if (s.outputs.contains(node)) {
      reason = "program output";
    } else if (matmul_operand) {
      reason = "matmul operand";
    } else if (!s.options.fuse) {
      reason = "unfused mode: every operation is a kernel";
    } else if (s.depth_cut[i] && IsWrittenConcatPart(s, node)) {
      reason = absl::StrCat("a part of a concat of more than ", s.options.max_concat_operands,
                            " operands (each is evaluated at every position)");
    } else if (s.depth_cut[i]) {
      reason = absl::StrCat("ends a chain of operations of inline cost ",
                            s.options.max_inline_depth, " (the most one kernel computes)");
    } else if (sites.size() > 1 && cost[i] > s.options.recompute_limit &&
               !s.online_terms.contains(node) && !(index_only[i] && attention_site(sites))) {
      reason = absl::StrCat("needed by ", sites.size(), " kernels and costs ", cost[i],
                            " to recompute (limit ", s.options.recompute_limit, "): written once");
    }
    s.written[i] = !reason.empty();
    if (s.written[i]) {
      evaluated_in[i] = {kRootBase + i};
    } else {
      sites.erase(kHost);
      evaluated_in[i] = std::move(sites);
    }
  }
}

}  // namespace tessel::fusion_internal
