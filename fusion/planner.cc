#include "fusion/planner.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "absl/strings/numbers.h"
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
  const char* env = std::getenv("TESSEL_FUSION");
  options.fuse = env == nullptr || std::strcmp(env, "0") != 0;
  return options;
}

FusionOptions DefaultFusionOptions(const Target& target) {
  FusionOptions options = DefaultFusionOptions();
  // 8: the largest cluster every sm_90 part launches (portable); a row of 8 x 16384 elements.
  // Long columns take up to 16 (non-portable: the H100's and H200's GPCs run them).
  // TESSEL_CLUSTERS=N caps both (0 or 1: none, longer rows stream; 8: portable ones only).
  int most = 16;
  const char* env = std::getenv("TESSEL_CLUSTERS");
  if (env != nullptr && (!absl::SimpleAtoi(env, &most) || most < 0 || most > 16)) most = 16;
  options.cluster_blocks = target.major >= 9 ? std::clamp(most, 1, 8) : 1;
  options.column_cluster_blocks = target.major >= 9 ? std::max(most, 1) : 1;
  if (target.major == 9) {
    const char* small = std::getenv("TESSEL_SMALL_TILES");
    const bool everywhere = small != nullptr && std::strcmp(small, "0") != 0;
    options.column_tile_columns = everywhere ? 1 : 64 * 2 * 132;
    options.column_tile_length = everywhere ? 1 : 241;
  }
  options.attention = target.major >= 8;
  const char* groups = std::getenv("TESSEL_GEMM_GROUPS");
  options.gemm_groups = target.major == 9 && target.arch_specific &&
                        (groups == nullptr || std::strcmp(groups, "0") != 0);
  const char* tickets = std::getenv("TESSEL_TICKETS");
  options.work_tickets = tickets == nullptr || std::strcmp(tickets, "0") != 0;
  const char* merge = std::getenv("TESSEL_SPLIT_MERGE");
  if (merge != nullptr && std::strcmp(merge, "last") == 0) options.split_merge = SplitMerge::kLast;
  if (merge != nullptr && std::strcmp(merge, "launch") == 0) {
    options.split_merge = SplitMerge::kLaunch;
  }
  // TESSEL_STAGED_ROW=N (1 to 16384) holds rows of at most N values on chip, so that the
  // streamed kernels run at the small sizes a fuzzer's programs have (tools/fuzz --staged_row).
  // Read here, where plans are built, not in DefaultFusionOptions(), which every realize calls.
  int64_t staged = 0;
  const char* staged_env = std::getenv("TESSEL_STAGED_ROW");
  if (staged_env != nullptr && absl::SimpleAtoi(staged_env, &staged) && staged >= 1) {
    options.max_staged_row = std::min(staged, options.max_staged_row);
  }
  return options;
}

}  // namespace tessel
