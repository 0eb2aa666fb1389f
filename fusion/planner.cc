#include "fusion/planner.h"

#include <algorithm>
#include <optional>
#include <string>

#include "core/environment.h"
#include "fusion/planner_state.h"

namespace tessel {

FusionPlan PlanFusion(const Program& program, const FusionOptions& options) {
  fusion_internal::PlannerState state(program, options);
  fusion_internal::AssignGroups(state);
  fusion_internal::ChooseWrites(state);
  // A dual GEMM computes a value other kernels read before: the writes are chosen again.
  if (fusion_internal::GroupGemms(state)) fusion_internal::ChooseWrites(state);
  return fusion_internal::BuildKernels(state);
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
  // TESSEL_STAGED_ROW=N (1 to 16384) holds rows of at most N values on chip, so that the
  // streamed kernels run at the small sizes a fuzzer's programs have (tools/fuzz --staged_row).
  // Read here, where plans are built, not in DefaultFusionOptions(), which every realize calls.
  if (std::optional<int64_t> staged = EnvInteger("TESSEL_STAGED_ROW", 1, int64_t{1} << 40)) {
    options.max_staged_row = std::min(*staged, options.max_staged_row);
  }
  return options;
}

}  // namespace tessel
