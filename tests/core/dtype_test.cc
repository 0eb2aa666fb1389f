#include "core/dtype.h"

#include <cmath>

#include "gtest/gtest.h"

namespace tessel {
namespace {

constexpr DType kAll[] = {DType::kBool, DType::kI32, DType::kI64, DType::kF16,
                          DType::kBF16, DType::kF32, DType::kF64};

TEST(DTypeTest, PromotionTableMatchesPyTorch) {
  // Rows and columns in kAll's order.
  const DType F64 = DType::kF64, F32 = DType::kF32, F16 = DType::kF16, BF = DType::kBF16,
              I64 = DType::kI64, I32 = DType::kI32, B = DType::kBool;
  const DType want[7][7] = {
      {B, I32, I64, F16, BF, F32, F64},    {I32, I32, I64, F16, BF, F32, F64},
      {I64, I64, I64, F16, BF, F32, F64},  {F16, F16, F16, F16, F32, F32, F64},
      {BF, BF, BF, F32, BF, F32, F64},     {F32, F32, F32, F32, F32, F32, F64},
      {F64, F64, F64, F64, F64, F64, F64},
  };
  for (int i = 0; i < 7; ++i) {
    for (int j = 0; j < 7; ++j) {
      EXPECT_EQ(Promote(kAll[i], kAll[j]), want[i][j]) << kAll[i] << " with " << kAll[j];
    }
  }
}

TEST(DTypeTest, ScalarsTakeTheTensorsDtype) {
  EXPECT_EQ(PromoteWithScalar(DType::kBF16, 2.5), DType::kBF16);
  EXPECT_EQ(PromoteWithScalar(DType::kF16, 3), DType::kF16);
  EXPECT_EQ(PromoteWithScalar(DType::kI32, 3), DType::kI32);
  EXPECT_EQ(PromoteWithScalar(DType::kI32, 0.5), DType::kF32);
  EXPECT_EQ(PromoteWithScalar(DType::kBool, 1), DType::kI32);
  EXPECT_EQ(PromoteWithScalar(DType::kBool, 0.5), DType::kF32);
  EXPECT_EQ(PromoteWithScalar(DType::kI64, 3), DType::kI64);
  EXPECT_EQ(PromoteWithScalar(DType::kI64, 0.5), DType::kF32);
  EXPECT_EQ(PromoteWithScalar(DType::kF64, 0.1), DType::kF64);
  // Integral scalars outside the integer type's range promote as fractions do, not clamped.
  EXPECT_EQ(PromoteWithScalar(DType::kI32, 2147483647), DType::kI32);
  EXPECT_EQ(PromoteWithScalar(DType::kI32, -2147483648.0), DType::kI32);
  EXPECT_EQ(PromoteWithScalar(DType::kI32, 2147483648.0), DType::kF32);
  EXPECT_EQ(PromoteWithScalar(DType::kI32, 1e10), DType::kF32);
  EXPECT_EQ(PromoteWithScalar(DType::kBool, 3e9), DType::kF32);
  EXPECT_EQ(PromoteWithScalar(DType::kI64, 1e10), DType::kI64);
  EXPECT_EQ(PromoteWithScalar(DType::kI64, -0x1p63), DType::kI64);
  EXPECT_EQ(PromoteWithScalar(DType::kI64, 0x1p63), DType::kF32);
  EXPECT_EQ(PromoteWithScalar(DType::kI32, INFINITY), DType::kF32);
}

TEST(DTypeTest, NamesRoundTripAndSizes) {
  for (DType d : kAll) {
    DType parsed;
    ASSERT_TRUE(ParseDType(DTypeName(d), &parsed));
    EXPECT_EQ(parsed, d);
  }
  DType unused;
  EXPECT_FALSE(ParseDType("f64x", &unused));
  EXPECT_EQ(DTypeSize(DType::kBF16), 2);
  EXPECT_EQ(DTypeSize(DType::kF32), 4);
  EXPECT_EQ(DTypeSize(DType::kBool), 1);
  EXPECT_EQ(DTypeSize(DType::kI64), 8);
  EXPECT_EQ(DTypeSize(DType::kF64), 8);
  EXPECT_TRUE(IsFloating(DType::kF64));
  EXPECT_FALSE(IsFloating(DType::kI64));
  EXPECT_TRUE(IsFloating(DType::kF16));
  EXPECT_FALSE(IsFloating(DType::kI32));
}

}  // namespace
}  // namespace tessel
