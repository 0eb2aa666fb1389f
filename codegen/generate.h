// The code generator: FusedKernel -> KernelSource, for every kernel kind, for one target.
#ifndef TESSEL_CODEGEN_GENERATE_H_
#define TESSEL_CODEGEN_GENERATE_H_

#include "codegen/kernel_source.h"
#include "codegen/nvrtc_compiler.h"
#include "fusion/plan.h"

namespace tessel::codegen {

// GEMMs depend on the target (tensor-core kernels on sm_90a); other kinds do not.
KernelSource GenerateKernel(const FusedKernel& kernel,
                            const cuda::Target& target = cuda::Target{});

KernelSource GeneratePointwise(const FusedKernel& kernel);
KernelSource GenerateReduction(const FusedKernel& kernel);  // reduction and normalization
KernelSource GenerateGemmSimt(const FusedKernel& kernel);   // any GEMM, any target
KernelSource GenerateGemmSm90(const FusedKernel& kernel);   // where GemmSm90Applies
bool GemmSm90Applies(const FusedKernel& kernel, const cuda::Target& target);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GENERATE_H_
