#include "codegen/generate.h"

namespace tessel::codegen {

KernelSource GenerateKernel(const FusedKernel& kernel) {
  switch (kernel.kind) {
    case KernelKind::kPointwise:
      return GeneratePointwise(kernel);
    case KernelKind::kReduction:
    case KernelKind::kNormalization:
      return GenerateReduction(kernel);
    case KernelKind::kGemm:
      return GenerateGemm(kernel);
  }
  return {};
}

}  // namespace tessel::codegen
