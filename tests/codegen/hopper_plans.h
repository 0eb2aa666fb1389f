// Plans of placeholder programs for sm_90a, for the tests of the Hopper GEMM's forms
// (gemm_groups_test, gemm_swap_test): code generation reads structure only.
#ifndef TESSEL_TESTS_CODEGEN_HOPPER_PLANS_H_
#define TESSEL_TESTS_CODEGEN_HOPPER_PLANS_H_

#include <vector>

#include "codegen/generate.h"
#include "core/realize.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel::testing {

inline const Target kHopper{9, 0, true};

// An input of `shape` without data.
inline Tensor Placeholder(Shape shape, DType dtype = DType::kBF16) {
  return Tensor(MakeInputNode(dtype, Device::kCPU, shape, nullptr));
}

inline codegen::GeneratedPlan GenerateForHopper(const std::vector<Tensor>& outputs) {
  std::vector<const Node*> roots;
  for (const Tensor& t : outputs) roots.push_back(&t.node());
  return codegen::PlanAndGenerate(roots, kHopper);
}

// The kernel of `outputs`' plan for sm_90a, which must be one kernel.
inline codegen::KernelSource OnlyHopperKernel(const std::vector<Tensor>& outputs) {
  codegen::GeneratedPlan g = GenerateForHopper(outputs);
  EXPECT_EQ(g.kernels.size(), 1u);
  return g.kernels.at(0);
}

}  // namespace tessel::testing

#endif  // TESSEL_TESTS_CODEGEN_HOPPER_PLANS_H_
