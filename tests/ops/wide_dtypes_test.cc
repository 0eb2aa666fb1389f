// i64 and f64 on the CPU backend (the reference the GPU tests compare with): exact integers
// past 2^53, two's complement wrapping, double precision through elementwise math, composites,
// reductions, matmul, views and casts, and the promotion of mixed operands.
#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

constexpr int64_t kBig = (int64_t{1} << 60) + 1;  // not a double
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Tensor I64(std::vector<int64_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return from_vector(v, {n}, DType::kI64, Device::kCPU);
}

Tensor F64(std::vector<double> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return from_vector(v, {n}, DType::kF64, Device::kCPU);
}

TEST(WideDTypesTest, DefaultDTypesOfTheVectorOverloads) {
  EXPECT_EQ(from_vector(std::vector<int64_t>{1}, {1}).dtype(), DType::kI64);
  EXPECT_EQ(from_vector(std::vector<double>{1}, {1}).dtype(), DType::kF64);
}

TEST(WideDTypesTest, I64ArithmeticIsExactAndWraps) {
  Tensor a = I64({kBig, kMax, kMin, -7, 3});
  Tensor b = I64({2, 1, -1, 2, -3});
  EXPECT_EQ((a + b).to_vector<int64_t>(), (std::vector<int64_t>{kBig + 2, kMin, kMax, -5, 0}));
  EXPECT_EQ((a - b).to_vector<int64_t>(),
            (std::vector<int64_t>{kBig - 2, kMax - 1, kMin + 1, -9, 6}));
  EXPECT_EQ((a * b).to_vector<int64_t>(),
            (std::vector<int64_t>{2 * kBig, kMax, kMin, -14, -9}));  // kMin * -1 wraps
  EXPECT_EQ(neg(a).to_vector<int64_t>(), (std::vector<int64_t>{-kBig, -kMax, kMin, 7, -3}));
  EXPECT_EQ(abs(a).to_vector<int64_t>(), (std::vector<int64_t>{kBig, kMax, kMin, 7, 3}));
  EXPECT_EQ((a + 1.0).to_vector<int64_t>()[0], kBig + 1);
  EXPECT_EQ(remainder(a, b).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 0, 1, 0}));
  EXPECT_EQ(fmod(a, b).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 0, -1, 0}));
  EXPECT_EQ(pow(I64({3, 2, -2}), I64({39, 64, 3})).to_vector<int64_t>(),
            (std::vector<int64_t>{4052555153018976267, 0, -8}));
  EXPECT_EQ(maximum(a, b).to_vector<int64_t>(), (std::vector<int64_t>{kBig, kMax, -1, 2, 3}));
  EXPECT_EQ(eq(a, I64({kBig - 1, kMax, kMin, -7, 3})).to_vector<bool>(),
            (std::vector<bool>{false, true, true, true, true}));
}

TEST(WideDTypesTest, PromotionOfMixedOperands) {
  Tensor i32 = from_vector(std::vector<int32_t>{1, 2}, {2}, DType::kI32, Device::kCPU);
  Tensor i64 = I64({kBig, 5});
  Tensor f16 = from_vector({0.5f, 1.5f}, {2}, DType::kF16, Device::kCPU);
  Tensor f32 = from_vector({0.5f, 1.5f}, {2}, DType::kF32, Device::kCPU);
  Tensor f64 = F64({0.25, 1e-12});
  EXPECT_EQ((i32 + i64).dtype(), DType::kI64);
  EXPECT_EQ((i32 + i64).to_vector<int64_t>(), (std::vector<int64_t>{kBig + 1, 7}));
  EXPECT_EQ((i64 + f16).dtype(), DType::kF16);
  EXPECT_EQ((f32 + f64).dtype(), DType::kF64);
  EXPECT_EQ((i64 / i64).dtype(), DType::kF32);
  EXPECT_EQ((i64 * 0.5).dtype(), DType::kF32);
  EXPECT_EQ((f64 * 0.1).dtype(), DType::kF64);
  EXPECT_EQ(exp(i64).dtype(), DType::kF32);
  EXPECT_EQ(sum(i64).dtype(), DType::kI64);
}

TEST(WideDTypesTest, F64KeepsDoublePrecision) {
  Tensor x = F64({1.0, 1e16, 0.1});
  const std::vector<double> got = ((x + 1e-12) - x).to_vector<double>();
  EXPECT_EQ(got[0], (1.0 + 1e-12) - 1.0);  // 1.0000889e-12: double's rounding, not float's
  EXPECT_EQ(got[1], 0);                    // 1e16 + 1e-12 rounds back to 1e16 in double too
  EXPECT_EQ((x * 3.0).to_vector<double>()[2], 0.1 * 3.0);
  EXPECT_EQ(sqrt(F64({2})).to_vector<double>()[0], std::sqrt(2.0));
  EXPECT_NEAR(exp(F64({1})).to_vector<double>()[0], std::exp(1.0), 1e-15);
  EXPECT_EQ(max(F64({1.0, 1.0 + 1e-15, 1.0 - 1e-15})).to_vector<double>()[0], 1.0 + 1e-15);
}

TEST(WideDTypesTest, ReductionsOfI64AreExact) {
  Tensor a = from_vector(std::vector<int64_t>{kBig, 1, 2, kBig, -kBig, 3}, {2, 3}, DType::kI64,
                         Device::kCPU);
  EXPECT_EQ(sum(a, {1}).to_vector<int64_t>(), (std::vector<int64_t>{kBig + 3, 3 + kBig - kBig}));
  EXPECT_EQ(sum(a, {0}).to_vector<int64_t>(), (std::vector<int64_t>{2 * kBig, 1 - kBig, 5}));
  EXPECT_EQ(max(a, {0}).to_vector<int64_t>(), (std::vector<int64_t>{kBig, 1, 3}));
  EXPECT_EQ(min(a).to_vector<int64_t>()[0], -kBig);
  EXPECT_EQ(prod(I64({kMax, 2})).to_vector<int64_t>()[0], -2);  // wraps
  EXPECT_EQ(sum(I64({kMax, 1})).to_vector<int64_t>()[0], kMin);
}

TEST(WideDTypesTest, F64ReductionsAndMatmul) {
  std::vector<double> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 1.0 / (1.0 + i);
  Tensor x = from_vector(v, {10, 100}, DType::kF64, Device::kCPU);
  double want = 0;
  for (double e : v) want += e;
  EXPECT_NEAR(sum(x).to_vector<double>()[0], want, 1e-13);
  // (10 x 100) x (100 x 10) against a double loop.
  Tensor y = matmul(x, permute(x, {1, 0}));
  EXPECT_EQ(y.dtype(), DType::kF64);
  const std::vector<double> got = y.to_vector<double>();
  for (int r = 0; r < 10; ++r) {
    for (int c = 0; c < 10; ++c) {
      double d = 0;
      for (int k = 0; k < 100; ++k) d += v[r * 100 + k] * v[c * 100 + k];
      EXPECT_NEAR(got[r * 10 + c], d, 1e-15 * std::abs(d) * 100);
    }
  }
  EXPECT_EQ((F64({1}) + from_vector({1}, {1}, DType::kF32, Device::kCPU)).dtype(), DType::kF64);
}

// Composites of f64 compute in f64 (not in f32, as they do for the 16-bit floats).
TEST(WideDTypesTest, CompositesOfF64StayInF64) {
  Tensor x = F64({1.0, 1.0 + 1e-12, 2.0});
  const std::vector<double> p = softmax(x).to_vector<double>();
  EXPECT_EQ(softmax(x).dtype(), DType::kF64);
  EXPECT_NEAR(p[1] / p[0], std::exp(1e-12), 1e-15);  // f32 would make them equal
  const Tensor w = F64({1, 1, 1}), b = F64({0, 0, 0});
  const std::vector<double> n = layer_norm(x, w, b, 0).to_vector<double>();
  EXPECT_NEAR(n[1] - n[0], 1e-12 / std::sqrt(2.0 / 9 * (1 + 1e-12)), 1e-14);
  EXPECT_LT(std::abs(gelu(F64({1e-9})).to_vector<double>()[0] - 0.5e-9), 1e-17);
}

TEST(WideDTypesTest, CastsBetweenEveryDTypeAndViewsKeepValues) {
  Tensor a = I64({kBig, -1, int64_t{1} << 40});
  EXPECT_EQ(cast(a, DType::kI32).to_vector<int32_t>(), (std::vector<int32_t>{1, -1, 0}));  // wraps
  EXPECT_EQ(cast(cast(a, DType::kF64), DType::kI64).to_vector<int64_t>()[2], int64_t{1} << 40);
  EXPECT_EQ(cast(F64({1e300, -1e300, NAN}), DType::kI64).to_vector<int64_t>(),
            (std::vector<int64_t>{kMax, kMin, 0}));  // saturates, NaN is 0
  EXPECT_EQ(cast(F64({1e300}), DType::kF32).to_vector<float>()[0], INFINITY);
  EXPECT_EQ(cast(a, DType::kBool).to_vector<bool>(), (std::vector<bool>{true, true, true}));
  Tensor m =
      from_vector(std::vector<int64_t>{kBig, 2, 3, kMax, 5, 6}, {2, 3}, DType::kI64, Device::kCPU);
  EXPECT_EQ(permute(m, {1, 0}).to_vector<int64_t>(),
            (std::vector<int64_t>{kBig, kMax, 2, 5, 3, 6}));
  EXPECT_EQ(concat({m, m}, 0).to_vector<int64_t>()[3], kMax);
  EXPECT_EQ(slice(m, 1, 0, 1).to_vector<int64_t>(), (std::vector<int64_t>{kBig, kMax}));
  EXPECT_EQ(where(gt(m, 4.0), m, 0.0).to_vector<int64_t>(),
            (std::vector<int64_t>{kBig, 0, 0, kMax, 5, 6}));
}

TEST(WideDTypesTest, CreationOfWideDTypes) {
  EXPECT_EQ(arange(3, DType::kI64, Device::kCPU).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(full({2}, 0.1, DType::kF64, Device::kCPU).to_vector<double>()[0], 0.1);
  EXPECT_EQ(randn({4}, 7, DType::kF64, Device::kCPU).dtype(), DType::kF64);
  EXPECT_EQ(to_string(I64({kBig})), "tensor([1152921504606846977], dtype=i64)");
}

}  // namespace
}  // namespace tessel
