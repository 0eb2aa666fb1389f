#include "fusion/planner.h"

#include <cstdlib>
#include <cstring>

#include "fusion/planner_state.h"

namespace tessel {

FusionPlan PlanFusion(const Program& program, const FusionOptions& options) {
  fusion_internal::PlannerState state(program, options);
  fusion_internal::AssignGroups(state);
  fusion_internal::ChooseWrites(state);
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
  // TESSEL_CLUSTERS=0: none (longer rows stream), e.g. to compare.
  const char* env = std::getenv("TESSEL_CLUSTERS");
  const bool clusters = env == nullptr || std::strcmp(env, "0") != 0;
  options.cluster_blocks = target.major >= 9 && clusters ? 8 : 1;
  return options;
}

}  // namespace tessel
