#include "codegen/generate.h"

#include "core/realize.h"
#include "fusion/planner.h"

namespace tessel::codegen {

KernelSource GenerateKernel(const FusedKernel& kernel, const Target& target) {
  switch (kernel.kind) {
    case KernelKind::kPointwise:
      return GeneratePointwise(kernel);
    case KernelKind::kReduction:
    case KernelKind::kNormalization:
      return GenerateReduction(kernel);
    case KernelKind::kGemm:
      if (GemmSm90Applies(kernel, target)) return GenerateGemmSm90(kernel);
      if (GemmSm80Applies(kernel, target)) return GenerateGemmSm80(kernel);
      return GenerateGemmSimt(kernel);
  }
  return {};
}

GeneratedPlan PlanAndGenerate(const std::vector<const Node*>& outputs, const Target& target) {
  GeneratedPlan g;
  g.plan = PlanFusion(CollectProgram(outputs), DefaultFusionOptions());
  for (const FusedKernel& k : g.plan.kernels) g.kernels.push_back(GenerateKernel(k, target));
  return g;
}

}  // namespace tessel::codegen
