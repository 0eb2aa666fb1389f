// The code generator: FusedKernel -> KernelSource, for every kernel kind, for one target.
#ifndef TESSEL_CODEGEN_GENERATE_H_
#define TESSEL_CODEGEN_GENERATE_H_

#include <optional>
#include <vector>

#include "codegen/kernel_source.h"
#include "core/backend.h"
#include "core/target.h"
#include "fusion/access.h"
#include "fusion/plan.h"

namespace tessel::codegen {

// GEMMs depend on the target (wgmma on sm_90a, mma.sync from sm_80, else SIMT); other kinds
// do not.
KernelSource GenerateKernel(const FusedKernel& kernel, const Target& target = Target{});

// The kernel with `rows` as its argument where it holds dynamic values; nullopt where it
// holds a value of `rows.fixed` or its generator cannot take them (then it must be
// specialized to the program's extents). A kernel that holds none is the static kernel,
// valid for every extent.
std::optional<KernelSource> GenerateWithRows(const FusedKernel& kernel, const Target& target,
                                             const DynamicRows& rows);
// A kernel of a plan made with rows that is specialized to the program's extents all the
// same: `fixed` where it holds a value of `rows.fixed`, else its generator takes no rows.
struct SpecializedKernel {
  int kernel = 0;
  bool fixed = false;
};
// Every kernel of `plan` with `rows` where it takes them, the others specialized (and
// appended to `specialized`).
std::vector<KernelSource> GeneratePlanWithRows(const FusionPlan& plan, const Target& target,
                                               const DynamicRows& rows,
                                               std::vector<SpecializedKernel>* specialized);

// The plan realize() would run for `outputs` and the source of each of its kernels.
struct GeneratedPlan {
  FusionPlan plan;
  std::vector<KernelSource> kernels;
  // With rows: the kernels made for this program's extents alone, which the plan then
  // serves alone (backend/dynamic_extents.h).
  std::vector<SpecializedKernel> specialized;
};
GeneratedPlan PlanAndGenerate(const std::vector<const Node*>& outputs, const Target& target);
// ... with `rows` the kernels' rows argument where they take it. Where a GEMM group cannot,
// the plan is made again without GEMM groups (grouped GEMMs keep their extents in the source)
// and that one kept if fewer kernels are specialized: taking the batch, which saves a compile
// per batch size, comes first.
GeneratedPlan PlanAndGenerateWithRows(const Program& program, const Target& target,
                                      const DynamicRows& rows);

// `rows`: null, or dynamic rows the kernel takes (PointwiseTakesRows, GemmTakesRows).
KernelSource GeneratePointwise(const FusedKernel& kernel, const DynamicRows* rows = nullptr);
// A pointwise kernel whose inputs are mostly read along another axis than its outputs are
// written (TransposeTiles says which two), tiled through shared memory.
KernelSource GenerateTransposed(const FusedKernel& kernel, const TransposedAxes& axes,
                                const DynamicRows* rows = nullptr);
// The axes GenerateTransposed tiles for a pointwise kernel, or none where it does not apply.
TransposedAxes TransposeTiles(const FusedKernel& kernel);
// Reduction and normalization.
KernelSource GenerateReduction(const FusedKernel& kernel, const DynamicRows* rows = nullptr);
// cumsum, cumprod.
KernelSource GenerateScan(const FusedKernel& kernel);
// argsort (sort, topk).
KernelSource GenerateSort(const FusedKernel& kernel);
// scatter_add.
KernelSource GenerateScatter(const FusedKernel& kernel);
// softmax(f(q k^T)) v in one kernel (sm_80 and later: the planner forms such kernels only
// for those targets); on wgmma where the target is sm_90a.
KernelSource GenerateAttention(const FusedKernel& kernel, const Target& target);
// Any GEMM, any target.
KernelSource GenerateGemmSimt(const FusedKernel& kernel, const DynamicRows* rows = nullptr);
// Where GemmSm80Applies.
KernelSource GenerateGemmSm80(const FusedKernel& kernel, const DynamicRows* rows = nullptr);
// Where GemmSm90Applies.
KernelSource GenerateGemmSm90(const FusedKernel& kernel, const DynamicRows* rows = nullptr);
// Whether a pointwise kernel can take dynamic rows: one iteration space whose leading
// extent is the rows.
bool PointwiseTakesRows(const FusedKernel& kernel, const DynamicRows& rows);
// Whether a reduction kernel can: staged rows over a row space whose leading extent is the
// rows and is not reduced.
bool ReductionTakesRows(const FusedKernel& kernel, const DynamicRows& rows);
bool GemmSm80Applies(const FusedKernel& kernel, const Target& target);
bool GemmSm90Applies(const FusedKernel& kernel, const Target& target);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GENERATE_H_
