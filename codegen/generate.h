// The code generator: FusedKernel -> KernelSource, for every kernel kind.
#ifndef TESSEL_CODEGEN_GENERATE_H_
#define TESSEL_CODEGEN_GENERATE_H_

#include "codegen/kernel_source.h"
#include "fusion/plan.h"

namespace tessel::codegen {

KernelSource GenerateKernel(const FusedKernel& kernel);

KernelSource GeneratePointwise(const FusedKernel& kernel);
KernelSource GenerateReduction(const FusedKernel& kernel);  // reduction and normalization
KernelSource GenerateGemm(const FusedKernel& kernel);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GENERATE_H_
