// Structural operations against reference index math, including views feeding other ops.
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::RandomTensor;
using testing::Unravel;

Tensor Iota(const Shape& shape, DType dtype = DType::kF32) {
  return reshape(arange(shape.numel(), dtype, Device::kCPU), shape);
}

TEST(StructureTest, ReshapeInfersOneDimension) {
  Tensor x = Iota({2, 3, 4});
  EXPECT_EQ(reshape(x, {4, -1}).shape(), (Shape{4, 6}));
  EXPECT_EQ(reshape(x, {-1}).to_vector<float>(),
            arange(24, DType::kF32, Device::kCPU).to_vector<float>());
  EXPECT_EQ(reshape(x, {2, 3, 4}).node_ptr(), x.node_ptr());
  EXPECT_EQ(reshape(full({}, 5, DType::kF32, Device::kCPU), {1, 1}).to_vector<float>()[0], 5);
}

TEST(StructureTest, PermuteMatchesIndexMath) {
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kI32, DType::kBool}) {
    const Shape shape{2, 3, 4};
    auto x = RandomTensor(shape, dtype, 9, -3, 3);
    const std::vector<int> perm{2, 0, 1};
    Tensor y = permute(x.tensor, perm);
    ASSERT_EQ(y.shape(), (Shape{4, 2, 3}));
    std::vector<double> got = y.to_vector<double>();
    for (int64_t i = 0; i < y.numel(); ++i) {
      const std::vector<int64_t> o = Unravel(i, y.shape());
      std::vector<int64_t> in(3);
      for (int d = 0; d < 3; ++d) in[perm[d]] = o[d];
      EXPECT_EQ(got[i], x.values[(in[0] * 3 + in[1]) * 4 + in[2]]) << DTypeName(dtype);
    }
  }
}

TEST(StructureTest, TransposeSwapsTheLastTwoAxes) {
  Tensor x = Iota({2, 2, 3});
  Tensor t = transpose(x);
  EXPECT_EQ(t.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
  EXPECT_EQ(transpose(t).to_vector<float>(), x.to_vector<float>());
}

TEST(StructureTest, BroadcastToRepeats) {
  Tensor x = from_vector({1, 2, 3}, {3, 1}, DType::kF32, Device::kCPU);
  Tensor y = broadcast_to(x, {2, 3, 2});
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(broadcast_to(full({}, 7, DType::kI32, Device::kCPU), {2}).to_vector<int32_t>(),
            (std::vector<int32_t>{7, 7}));
}

TEST(StructureTest, SliceClampsLikePython) {
  Tensor x = Iota({2, 5});
  EXPECT_EQ(slice(x, 1, 1, 3).to_vector<float>(), (std::vector<float>{1, 2, 6, 7}));
  EXPECT_EQ(slice(x, -1, -2, 100).to_vector<float>(), (std::vector<float>{3, 4, 8, 9}));
  EXPECT_EQ(slice(x, 0, 1, 2).to_vector<float>(), (std::vector<float>{5, 6, 7, 8, 9}));
  EXPECT_EQ(slice(x, 1, 4, 2).shape(), (Shape{2, 0}));
  EXPECT_EQ(slice(x, 1, 0, 5).node_ptr(), x.node_ptr());
}

TEST(StructureTest, ConcatJoinsAndPromotes) {
  Tensor a = Iota({2, 2});
  Tensor b = reshape(arange(2, DType::kBF16, Device::kCPU), {2, 1}) + 10.0;
  Tensor y = concat({a, b, a}, -1);
  EXPECT_EQ(y.shape(), (Shape{2, 5}));
  EXPECT_EQ(y.dtype(), DType::kF32);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0, 1, 10, 0, 1, 2, 3, 11, 2, 3}));
  EXPECT_EQ(concat({a, a}, 0).to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(concat({a}, 0).node_ptr(), a.node_ptr());
}

TEST(StructureTest, ViewsFeedArithmetic) {
  Tensor x = Iota({3, 4});
  Tensor z = transpose(x) + reshape(slice(x, 1, 0, 1), {1, 3});  // [4,3] + [1,3]
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{0, 8, 16, 1, 9, 17, 2, 10, 18, 3, 11, 19}));
}

}  // namespace
}  // namespace tessel
