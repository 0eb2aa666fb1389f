#include "fusion/planner.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "core/environment.h"
#include "core/op_kind.h"
#include "fusion/planner_state.h"

namespace tessel {

namespace {

FusionPlan PlanHolding(const Program& program, const FusionOptions& options,
                       absl::flat_hash_set<const Node*> held_rows) {
  fusion_internal::PlannerState state(program, options);
  state.held_rows = std::move(held_rows);
  fusion_internal::AssignGroups(state);
  fusion_internal::ChooseWrites(state);
  // A dual GEMM computes a value other kernels read before: the writes are chosen again.
  if (fusion_internal::GroupGemms(state)) fusion_internal::ChooseWrites(state);
  return fusion_internal::BuildKernels(state);
}

// Whether reduction kernel `k` streams rows that one block's shared memory could hold
// (FusionOptions::max_held_row): contiguous rows (the trailing axes reduced), many of them,
// their inputs along the row within held_row_bytes.
bool MayHoldRows(const FusedKernel& k, const FusionOptions& o) {
  if (k.kind != KernelKind::kReduction || k.staged || k.reduced_axes.empty()) return false;
  const int rank = k.row_space.rank(), reduced = static_cast<int>(k.reduced_axes.size());
  int64_t length = 1;
  for (int i = 0; i < reduced; ++i) {
    if (k.reduced_axes[i] != rank - reduced + i) return false;
    length *= k.row_space[rank - reduced + i];
  }
  // Few rows leave SMs idle at a block a row: clusters (sm_90) or streamed chunks take them.
  const int64_t rows = k.row_space.numel() / std::max<int64_t>(length, 1);
  if (length > o.max_held_row || rows < o.cluster_rows_below) return false;
  int64_t bytes = 0;
  for (const Node* in : k.inputs) {
    if (in->shape() == k.row_space) bytes += HeldRowBytes(length, in->dtype());
  }
  return bytes > 0 && bytes <= o.held_row_bytes;
}

// The first reductions of kernels whose rows a second plan should hold in shared memory:
// rows that a kernel streams and a pointwise kernel then reads again to write values over the
// same rows (a softmax or layer norm split in two, each reading the rows).
absl::flat_hash_set<const Node*> RowsWorthHolding(const FusionPlan& plan, const FusionOptions& o) {
  absl::flat_hash_set<const Node*> held;
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const FusedKernel& k = plan.kernels[i];
    if (!MayHoldRows(k, o)) continue;
    for (const FusedKernel& p : plan.kernels) {
      const bool reads_k = std::find(p.depends_on.begin(), p.depends_on.end(),
                                     static_cast<int>(i)) != p.depends_on.end();
      const bool over_rows = std::any_of(p.outputs.begin(), p.outputs.end(),
                                         [&](const Node* n) { return n->shape() == k.row_space; });
      if (p.kind != KernelKind::kPointwise || !reads_k || !over_rows) continue;
      for (const Node* n : k.nodes) {
        if (GetOpInfo(n->op()).category == OpCategory::kReduce && !IsDegenerateReduction(*n) &&
            !CombinesNothing(*n)) {
          held.insert(n);  // the reduction that made the group
          break;
        }
      }
      break;
    }
  }
  return held;
}

}  // namespace

FusionPlan PlanFusion(const Program& program, const FusionOptions& options) {
  FusionPlan plan = PlanHolding(program, options, {});
  if (!options.fuse || options.held_row_bytes == 0) return plan;
  absl::flat_hash_set<const Node*> held = RowsWorthHolding(plan, options);
  if (held.empty()) return plan;
  // Kept where the rows' readers joined (a cut chain may leave them a kernel of their own).
  FusionPlan holding = PlanHolding(program, options, std::move(held));
  return holding.kernels.size() < plan.kernels.size() ? holding : plan;
}

FusionOptions DefaultFusionOptions() {
  FusionOptions options;
  options.fuse = EnvSwitch("TESSEL_FUSION", true);
  return options;
}

FusionOptions DefaultFusionOptions(const Target& target) {
  FusionOptions options = DefaultFusionOptions();
  // 8: the largest cluster every sm_90 part launches (portable); a row of 8 x 16384 elements.
  // Long columns take up to 16 (non-portable: the H100's and H200's GPCs run them).
  // TESSEL_CLUSTERS=N caps both (0 or 1: none, longer rows stream; 8: portable ones only).
  const int most = static_cast<int>(EnvInteger("TESSEL_CLUSTERS", 0, 16).value_or(16));
  options.cluster_blocks = target.major >= 9 ? std::clamp(most, 1, 8) : 1;
  options.column_cluster_blocks = target.major >= 9 ? std::max(most, 1) : 1;
  if (target.major == 9) {
    const bool everywhere = EnvSwitch("TESSEL_SMALL_TILES", false);
    options.column_tile_columns = everywhere ? 1 : 64 * 2 * 132;
    options.column_tile_length = everywhere ? 1 : 241;
  }
  options.attention = target.major >= 8;
  options.gemm_groups =
      target.major == 9 && target.arch_specific && EnvSwitch("TESSEL_GEMM_GROUPS", true);
  options.work_tickets = EnvSwitch("TESSEL_TICKETS", true);
  const std::optional<std::string> merge = EnvChoice("TESSEL_SPLIT_MERGE", {"last", "launch"});
  if (merge == "last") options.split_merge = SplitMerge::kLast;
  if (merge == "launch") options.split_merge = SplitMerge::kLaunch;
  if (target.major == 9 || target.major == 10) {
    // Up to 200 KB of a block's 227 KB (H100, H200, B200; measured on the H200 only): bf16
    // rows up to 102400. Past 96 KB one block an SM, its copy and sweeps one after another,
    // still beats streaming the rows twice: bf16 softmax over 512 rows of 65536, 55% of copy
    // against 43% (three kernels), f32 over 1024 rows of 32768 87% against 48%; rows of at
    // most 96 KB run two or more blocks an SM (bench/RESULTS.md, fifty-sixth session).
    options.max_held_row = 102400;
    options.held_row_bytes = 200 * 1024;
  }
  // TESSEL_STAGED_ROW=N (1 to 16384) holds rows of at most N values on chip, so that the
  // streamed kernels run at the small sizes a fuzzer's programs have (tools/fuzz --staged_row).
  // Read here, where plans are built, not in DefaultFusionOptions(), which every realize calls.
  if (std::optional<int64_t> staged = EnvInteger("TESSEL_STAGED_ROW", 1, int64_t{1} << 40)) {
    options.max_staged_row = std::min(*staged, options.max_staged_row);
    // At the fuzzer's sizes too: many rows held in shared memory up to 3 N, streamed past.
    options.max_held_row = std::min(3 * options.max_staged_row, options.max_held_row);
  }
  return options;
}

}  // namespace tessel
