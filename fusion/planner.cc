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

}  // namespace tessel
