#include "codegen/generate.h"

#include <algorithm>

#include "codegen/gemm_common.h"
#include "codegen/gemm_sm90_tiles.h"
#include "core/error.h"
#include "core/realize.h"
#include "fusion/planner.h"

namespace tessel::codegen {
namespace {

// Kernels of several GEMMs (FusedKernel::gemm_parts) are formed only where the Hopper kernel
// takes them (fusion/gemm_groups.cc).
void CheckOneGemm(const FusedKernel& kernel) {
  TESSEL_CHECK(kernel.gemm_parts.size() <= 1,
               "a kernel of several GEMMs reached a target "
               "without the Hopper GEMM kernel");
}

}  // namespace

KernelSource GenerateKernel(const FusedKernel& kernel, const Target& target) {
  switch (kernel.kind) {
    case KernelKind::kPointwise:
      return GeneratePointwise(kernel);
    case KernelKind::kReduction:
    case KernelKind::kNormalization:
      return GenerateReduction(kernel);
    case KernelKind::kGemm:
      if (GemmSm90Applies(kernel, target)) return GenerateGemmSm90(kernel);
      CheckOneGemm(kernel);
      if (GemmSm80Applies(kernel, target)) return GenerateGemmSm80(kernel);
      return GenerateGemmSimt(kernel);
    case KernelKind::kScan:
      return GenerateScan(kernel);
    case KernelKind::kSort:
      return GenerateSort(kernel);
    case KernelKind::kScatter:
      return GenerateScatter(kernel);
    case KernelKind::kAttention:
      return GenerateAttention(kernel, target);
  }
  return {};
}

namespace {

bool HoldsAny(const FusedKernel& kernel, const absl::flat_hash_set<const Node*>& values) {
  for (const auto* list : {&kernel.nodes, &kernel.inputs, &kernel.outputs}) {
    for (const Node* n : *list) {
      if (values.contains(n)) return true;
    }
  }
  return false;
}

// Whether the batch is in the kernel's index math or its values' other extents (rows.fixed,
// rows.fixed_math), so that only a kernel for this program's extents serves.
bool HoldsFixedValues(const FusedKernel& kernel, const DynamicRows& rows) {
  for (const Node* n : kernel.nodes) {
    if (rows.fixed_math.contains(n)) return true;
  }
  return HoldsAny(kernel, rows.fixed);
}

}  // namespace

std::optional<KernelSource> GenerateWithRows(const FusedKernel& kernel, const Target& target,
                                             const DynamicRows& rows) {
  // A weight gradient's GEMM reads the batch through transposed views (fixed values): on
  // Hopper the batch is its K (tessel_gemm_sm90's k_steps), unless a kernel for each batch
  // size would cut its K into slices (SlicesTheMostK: then that kernel is made instead).
  if (kernel.kind == KernelKind::kGemm && GemmSm90Applies(kernel, target) &&
      GemmTakesRowsAsK(kernel, rows)) {
    if (SlicesTheMostK(AnalyzeGemm(kernel, &rows))) return std::nullopt;
    return GenerateGemmSm90(kernel, &rows);
  }
  if (HoldsFixedValues(kernel, rows)) return std::nullopt;
  if (!HoldsAny(kernel, rows.nodes)) return GenerateKernel(kernel, target);
  switch (kernel.kind) {
    case KernelKind::kPointwise:
      if (PointwiseTakesRows(kernel, rows)) return GeneratePointwise(kernel, &rows);
      return std::nullopt;
    case KernelKind::kGemm: {
      if (!GemmTakesRows(kernel, rows)) return std::nullopt;
      // A staged copy of A (gemm_staging.h) would be sized by the rows: such kernels keep
      // static rows. (So does Hopper on TF32: its rows path has no GPU test yet.)
      const GemmProblem p = AnalyzeGemm(kernel);
      if (GemmSm90Applies(kernel, target)) {
        if (p.a.staged || p.tf32) return std::nullopt;
        return GenerateGemmSm90(kernel, &rows);
      }
      CheckOneGemm(kernel);
      if (GemmSm80Applies(kernel, target)) {
        if (p.a.staged) return std::nullopt;
        return GenerateGemmSm80(kernel, &rows);
      }
      return GenerateGemmSimt(kernel, &rows);
    }
    case KernelKind::kReduction:
    case KernelKind::kNormalization:
      if (ReductionTakesRows(kernel, rows)) return GenerateReduction(kernel, &rows);
      return std::nullopt;
    case KernelKind::kScan:  // extents in the source
    case KernelKind::kSort:
    case KernelKind::kScatter:
    case KernelKind::kAttention:
      return std::nullopt;
  }
  return std::nullopt;
}

std::vector<KernelSource> GeneratePlanWithRows(const FusionPlan& plan, const Target& target,
                                               const DynamicRows& rows,
                                               std::vector<SpecializedKernel>* specialized) {
  std::vector<KernelSource> sources;
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const FusedKernel& kernel = plan.kernels[i];
    std::optional<KernelSource> ks = GenerateWithRows(kernel, target, rows);
    if (!ks.has_value()) {
      specialized->push_back({static_cast<int>(i), HoldsFixedValues(kernel, rows)});
      ks = GenerateKernel(kernel, target);
    }
    sources.push_back(*std::move(ks));
  }
  return sources;
}

GeneratedPlan PlanAndGenerateWithRows(const Program& program, const Target& target,
                                      const DynamicRows& rows) {
  FusionOptions options = DefaultFusionOptions(target);
  auto plan = [&] {
    GeneratedPlan g;
    g.plan = PlanFusion(program, options);
    g.kernels = GeneratePlanWithRows(g.plan, target, rows, &g.specialized);
    return g;
  };
  GeneratedPlan g = plan();
  const bool grouped_specialized =
      std::any_of(g.specialized.begin(), g.specialized.end(), [&](const SpecializedKernel& s) {
        return g.plan.kernels[s.kernel].gemm_form != GemmForm::kSingle;
      });
  if (grouped_specialized && options.gemm_groups) {
    options.gemm_groups = false;
    GeneratedPlan ungrouped = plan();
    if (ungrouped.specialized.size() < g.specialized.size()) g = std::move(ungrouped);
  }
  return g;
}

GeneratedPlan PlanAndGenerate(const std::vector<const Node*>& outputs, const Target& target) {
  GeneratedPlan g;
  g.plan = PlanFusion(CollectProgram(outputs), DefaultFusionOptions(target));
  for (const FusedKernel& k : g.plan.kernels) g.kernels.push_back(GenerateKernel(k, target));
  return g;
}

}  // namespace tessel::codegen
