// Which exponentials run as normalization terms (codegen/normalization_term.h): exp(y - m)
// with m the max of y kept at y's rank, so that every exponent is at most 0.
#include "codegen/normalization_term.h"

#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel::codegen {
namespace {

bool Term(const Tensor& t) { return IsNormalizationTerm(t.node()); }

TEST(NormalizationTermTest, ShiftedByTheMaxAlongAnyAxes) {
  const Tensor x = randn({4, 6, 8}, 1, DType::kF32, Device::kCPU);
  EXPECT_TRUE(Term(exp(x - max(x, {2}, true))));
  EXPECT_TRUE(Term(exp(x - max(x, {0}, true))));
  EXPECT_TRUE(Term(exp(x - max(x, {0, 2}, true))));
  const Tensor h = randn({4, 6}, 2, DType::kBF16, Device::kCPU);  // computed in f32
  EXPECT_TRUE(Term(exp(h - max(h, {1}, true))));
}

TEST(NormalizationTermTest, ShiftedByAGuardedMax) {
  const Tensor x = randn({4, 8}, 3, DType::kF32, Device::kCPU);
  const Tensor m = max(x, {1}, true);
  EXPECT_TRUE(Term(exp(x - where(isfinite(m), m, 0.0))));
  EXPECT_FALSE(Term(exp(x - where(isnan(m), m, 0.0))));
}

// Exponents that may be positive, or no max of the same values: expf as written.
TEST(NormalizationTermTest, OtherExponentialsAreNot) {
  const Tensor x = randn({4, 4}, 4, DType::kF32, Device::kCPU);
  const Tensor y = randn({4, 4}, 5, DType::kF32, Device::kCPU);
  EXPECT_FALSE(Term(exp(x)));
  EXPECT_FALSE(Term(exp(x - max(y, {1}, true))));   // another tensor's max
  EXPECT_FALSE(Term(exp(x - max(x, {1}, false))));  // row maxima broadcast along rows
  EXPECT_FALSE(Term(exp(max(x, {1}, true) - x)));   // exponents >= 0
  EXPECT_FALSE(Term(exp(x - min(x, {1}, true))));
  EXPECT_FALSE(Term(exp(x + max(x, {1}, true))));
  const Tensor d = randn({4, 4}, 6, DType::kF64, Device::kCPU);  // f64 keeps exp
  EXPECT_FALSE(Term(exp(d - max(d, {1}, true))));
}

// A realized node holds data and no inputs: nothing to look through.
TEST(NormalizationTermTest, RealizedShiftIsNot) {
  const Tensor x = randn({4, 8}, 7, DType::kF32, Device::kCPU);
  const Tensor s = x - max(x, {1}, true);
  realize({s});
  EXPECT_FALSE(Term(exp(s)));
}

}  // namespace
}  // namespace tessel::codegen
