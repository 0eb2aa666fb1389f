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
      if (GemmSm90Applies(kernel, target)) return GenerateGemmSm90(kernel);
      if (GemmSm80Applies(kernel, target)) return GenerateGemmSm80(kernel);
      return GenerateGemmSimt(kernel);
  }
  return {};
}

}  // namespace tessel::codegen
