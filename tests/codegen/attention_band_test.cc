// Key bands (codegen/attention_band.h): causal and window masks written with triu, tril and
// masked_fill or where give the band their comparison sets; masks that are not a diagonal
// band give none.
#include "codegen/attention_band.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel::codegen {
namespace {

Tensor In(Shape shape) {
  return from_vector(std::vector<float>(shape.numel()), shape, DType::kF32, Device::kCPU);
}

TEST(AttentionBandTest, TriuMaskedFillIsAnUpperBand) {
  const Tensor s = In({2, 96, 160});
  const Tensor logits = masked_fill(s, triu(ones({96, 160}, DType::kBool), 65), -INFINITY);
  const std::vector<KeyBand> bands = FindKeyBands(&logits.node(), 96, 160);
  ASSERT_EQ(bands.size(), 1u);
  EXPECT_TRUE(bands[0].upper);  // keys >= row + 65 are -inf
  EXPECT_EQ(bands[0].adjust, 0);
  EXPECT_EQ(bands[0].diagonal->op(), OpKind::kFull);
  EXPECT_EQ(bands[0].conditions.size(), 2u);  // triu's ones are true and its zeros false
}

// The language model's mask: the keys where tril(ones) is 0 (`eq(.., false)`, or `== 0.0` of
// a float tril, or logical_not), under conditions on the scalars that make it so.
TEST(AttentionBandTest, EqualToZeroOfTrilIsTheUpperBand) {
  const Tensor s = In({16, 16});
  for (const Tensor& future :
       {eq(tril(ones({16, 16}, DType::kBool)), false), eq(tril(ones({16, 16})), 0.0),
        logical_not(tril(ones({16, 16}, DType::kBool))), ne(triu(ones({16, 16}), 1), 0.0)}) {
    const std::vector<KeyBand> bands =
        FindKeyBands(&masked_fill(s, future, -INFINITY).node(), 16, 16);
    ASSERT_EQ(bands.size(), 1u) << PrintGraph({future});
    EXPECT_TRUE(bands[0].upper);  // keys >= row + 1
    EXPECT_EQ(bands[0].diagonal->attrs().value + bands[0].adjust, 1) << PrintGraph({future});
    EXPECT_EQ(bands[0].conditions.size(), 2u);
  }
}

TEST(AttentionBandTest, WhereOfTrilKeepsAndAWindowsLowerSide) {
  const Tensor s = In({64, 64});
  // Kept where col - row <= 0: masked where col - row >= 1. Then keys before row - 8 too.
  Tensor logits = where(tril(ones({64, 64}, DType::kBool)), s, -INFINITY);
  logits = masked_fill(logits, tril(ones({64, 64}, DType::kBool), -9), -INFINITY);
  const std::vector<KeyBand> bands = FindKeyBands(&logits.node(), 64, 64);
  ASSERT_EQ(bands.size(), 2u);
  EXPECT_FALSE(bands[0].upper);  // the outer where: keys <= row - 9 + 0
  EXPECT_EQ(bands[0].adjust, 0);
  EXPECT_TRUE(bands[1].upper);  // keys >= row + 0 + 1
  EXPECT_EQ(bands[1].adjust, 1);
}

// A cache's valid length: keys at or past `length` are -inf for every row.
TEST(AttentionBandTest, KeysPastALengthAreABandOfEveryRow) {
  const Tensor s = In({4, 1, 4096});
  const Tensor positions = arange(4096, DType::kI32, Device::kCPU);
  const Tensor length = full({}, 1000, DType::kI32, Device::kCPU);
  for (const Tensor& logits : {masked_fill(s, ge(positions, length), -INFINITY),
                               where(lt(positions, length), s, -INFINITY)}) {
    const std::vector<KeyBand> bands = FindKeyBands(&logits.node(), 1, 4096);
    ASSERT_EQ(bands.size(), 1u) << PrintGraph({logits});
    EXPECT_TRUE(bands[0].upper);  // keys >= length
    EXPECT_FALSE(bands[0].per_row);
    EXPECT_EQ(bands[0].adjust, 0);
    EXPECT_EQ(bands[0].diagonal, &length.node());
  }
}

TEST(AttentionBandTest, OtherMasksGiveNoBand) {
  const Tensor s = In({64, 64});
  const Tensor data_mask = gt(In({64, 64}), 0.5);  // a mask of data, not of indices
  EXPECT_TRUE(FindKeyBands(&masked_fill(s, data_mask, -INFINITY).node(), 64, 64).empty());
  // A mask over the other axes' pair (rows vs rows) is no key band.
  const Tensor transposed = transpose(triu(ones({64, 64}, DType::kBool), 1));
  EXPECT_TRUE(FindKeyBands(&masked_fill(s, transposed, -INFINITY).node(), 64, 64).empty());
  EXPECT_TRUE(FindKeyBands(&(s * 2.0).node(), 64, 64).empty());
}

}  // namespace
}  // namespace tessel::codegen
