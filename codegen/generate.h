// The code generator: FusedKernel -> KernelSource, for every kernel kind, for one target.
#ifndef TESSEL_CODEGEN_GENERATE_H_
#define TESSEL_CODEGEN_GENERATE_H_

#include <vector>

#include "codegen/kernel_source.h"
#include "core/target.h"
#include "fusion/plan.h"

namespace tessel::codegen {

// GEMMs depend on the target (wgmma on sm_90a, mma.sync from sm_80, else SIMT); other kinds
// do not.
KernelSource GenerateKernel(const FusedKernel& kernel, const Target& target = Target{});

// The plan realize() would run for `outputs` and the source of each of its kernels.
struct GeneratedPlan {
  FusionPlan plan;
  std::vector<KernelSource> kernels;
};
GeneratedPlan PlanAndGenerate(const std::vector<const Node*>& outputs, const Target& target);

KernelSource GeneratePointwise(const FusedKernel& kernel);
KernelSource GenerateReduction(const FusedKernel& kernel);  // reduction and normalization
KernelSource GenerateGemmSimt(const FusedKernel& kernel);   // any GEMM, any target
KernelSource GenerateGemmSm80(const FusedKernel& kernel);   // where GemmSm80Applies
KernelSource GenerateGemmSm90(const FusedKernel& kernel);   // where GemmSm90Applies
bool GemmSm80Applies(const FusedKernel& kernel, const Target& target);
bool GemmSm90Applies(const FusedKernel& kernel, const Target& target);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GENERATE_H_
