#include "core/dtype.h"

#include "gtest/gtest.h"

namespace tessel {
namespace {

constexpr DType kAll[] = {DType::kBool, DType::kI32, DType::kF16, DType::kBF16, DType::kF32};

TEST(DTypeTest, PromotionTableMatchesPyTorch) {
  // Rows and columns in kAll's order.
  const DType F32 = DType::kF32, F16 = DType::kF16, BF = DType::kBF16, I32 = DType::kI32,
              B = DType::kBool;
  const DType want[5][5] = {
      {B, I32, F16, BF, F32}, {I32, I32, F16, BF, F32},  {F16, F16, F16, F32, F32},
      {BF, BF, F32, BF, F32}, {F32, F32, F32, F32, F32},
  };
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) {
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
  EXPECT_TRUE(IsFloating(DType::kF16));
  EXPECT_FALSE(IsFloating(DType::kI32));
}

}  // namespace
}  // namespace tessel
