// Values are kernel arguments, not source: a program that differs only in its scalars, eps or
// generator seeds generates the same kernels, which take the values at launch.
#include <cmath>
#include <limits>

#include "absl/base/casts.h"
#include "codegen/generate.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

Tensor In(Shape s, DType dtype = DType::kF32) {
  return Tensor(MakeInputNode(dtype, Device::kCPU, s, nullptr));
}

// An SGD step with dropout and a layer norm, as a training loop writes it each step.
std::vector<Tensor> Step(double lr, uint64_t seed, double eps, DType dtype) {
  const Tensor p = In({64, 256}, dtype), g = In({64, 256}, dtype);
  const Tensor w = In({256}, dtype), b = In({256}, dtype);
  const Tensor keep =
      lt(rand({64, 256}, seed, dtype, Device::kCPU), full({}, 0.9, dtype, Device::kCPU));
  const Tensor dropped = where(keep, g / 0.9, zeros({64, 256}, dtype, Device::kCPU));
  return {p - lr * dropped, layer_norm(p, w, b, eps), randn({7}, seed + 1, dtype, Device::kCPU)};
}

std::vector<std::string> Sources(const std::vector<Tensor>& outputs) {
  std::vector<std::string> sources;
  for (const KernelInfo& k : inspect(outputs)) sources.push_back(k.source);
  return sources;
}

TEST(ArgumentsTest, ChangedValuesAndSeedsGenerateTheSameKernels) {
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    const std::vector<std::string> first = Sources(Step(0.1, 1, 1e-5, dtype));
    ASSERT_GE(first.size(), 2u);
    EXPECT_EQ(Sources(Step(0.01, 2, 1e-6, dtype)), first);
    EXPECT_EQ(Sources(Step(-3.75, 1234567890123ull, 0.5, dtype)), first);
  }
}

TEST(ArgumentsTest, KernelsNameTheirScalarsAsParameters) {
  const Tensor x = In({1000});
  const Tensor y = x * 0.123456789 + rand({1000}, 987654321, DType::kF32, Device::kCPU);
  const std::vector<KernelInfo> kernels = inspect({y});
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_NE(kernels[0].source.find("float s0"), std::string::npos) << kernels[0].source;
  EXPECT_NE(kernels[0].source.find("unsigned long long s"), std::string::npos);
  EXPECT_EQ(kernels[0].source.find("987654321"), std::string::npos);
  const codegen::KernelSource ks = codegen::PlanAndGenerate({&y.node()}, Target{}).kernels.at(0);
  ASSERT_EQ(ks.scalars.size(), 2u);
}

uint64_t FullBits(double v, DType dtype) {
  return codegen::ScalarArgument(full({}, v, dtype, Device::kCPU).node());
}

// The argument is the value the CPU backend stores for the node.
TEST(ArgumentsTest, ScalarArgumentsRoundAsTheCpuBackendStores) {
  EXPECT_EQ(FullBits(0.1, DType::kF32), absl::bit_cast<uint32_t>(0.1f));
  EXPECT_EQ(FullBits(-0.0, DType::kF32), absl::bit_cast<uint32_t>(-0.0f));
  EXPECT_EQ(FullBits(1.0 / 3, DType::kBF16), absl::bit_cast<uint32_t>(0.333984375f));
  EXPECT_EQ(FullBits(70000, DType::kF16), absl::bit_cast<uint32_t>(INFINITY));
  EXPECT_EQ(FullBits(3.9, DType::kI32), 3u);
  EXPECT_EQ(FullBits(-3.9, DType::kI32), static_cast<uint32_t>(-3));
  // Truncated toward zero at the type's edges (full refuses values past them).
  EXPECT_EQ(FullBits(2147483647.9, DType::kI32), static_cast<uint32_t>(INT32_MAX));
  EXPECT_EQ(FullBits(-2147483648.9, DType::kI32), static_cast<uint32_t>(INT32_MIN));
  EXPECT_EQ(FullBits(0.5, DType::kBool), 1u);
  EXPECT_EQ(FullBits(0, DType::kBool), 0u);
  const uint64_t seed = 0xfedcba9876543210ull;
  EXPECT_EQ(codegen::ScalarArgument(rand({3}, seed, DType::kF32, Device::kCPU).node()), seed);
}

}  // namespace
}  // namespace tessel
