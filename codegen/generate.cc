#include "codegen/generate.h"

namespace tessel::codegen {

KernelSource GenerateKernel(const FusedKernel& kernel, const cuda::Target& target) {
  switch (kernel.kind) {
    case KernelKind::kPointwise:
      return GeneratePointwise(kernel);
    case KernelKind::kReduction:
    case KernelKind::kNormalization:
      return GenerateReduction(kernel);
    case KernelKind::kGemm:
      return GemmSm90Applies(kernel, target) ? GenerateGemmSm90(kernel) : GenerateGemmSimt(kernel);
  }
  return {};
}

}  // namespace tessel::codegen
