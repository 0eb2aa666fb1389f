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

// A step past the extent takes the start alone, even where end - start + step overflows.
TEST(StructureTest, SliceWithTheLargestStep) {
  Tensor x = Iota({10});
  EXPECT_EQ(slice(x, 0, 0, 10, INT64_MAX).to_vector<float>(), (std::vector<float>{0}));
  EXPECT_EQ(slice(x, 0, 3, 10, INT64_MAX).to_vector<float>(), (std::vector<float>{3}));
  EXPECT_EQ(slice(x, 0, 3, 3, INT64_MAX).shape(), (Shape{0}));
}

// Python's x[start:end:step] along one axis, against a reference loop.
TEST(StructureTest, SliceWithAStep) {
  Tensor x = Iota({3, 10});
  for (int64_t step : {1, 2, 3, 4, 11}) {
    for (auto [start, end] : {std::pair<int64_t, int64_t>{0, 10}, {1, 9}, {-4, 100}, {7, 2}}) {
      Tensor y = slice(x, 1, start, end, step);
      const int64_t b = start < 0 ? start + 10 : start, e = std::min<int64_t>(end, 10);
      std::vector<float> want;
      for (int64_t r = 0; r < 3; ++r) {
        for (int64_t c = b; c < e; c += step) want.push_back(static_cast<float>(r * 10 + c));
      }
      EXPECT_EQ(y.to_vector<float>(), want) << start << ":" << end << ":" << step;
      EXPECT_EQ(y.shape()[1] * 3, static_cast<int64_t>(want.size()));
    }
  }
  EXPECT_EQ(slice(x, 0, 0, 3, 2).to_vector<float>()[10], 20.0f);  // rows 0 and 2
  testing::ExpectError([&] { slice(x, 1, 0, 5, 0); }, {"tessel::slice:", "step 0", "f32[3,10]"});
}

TEST(StructureTest, FlipReversesAxes) {
  Tensor x = Iota({2, 3, 4});
  for (std::vector<int> axes : std::vector<std::vector<int>>{{0}, {2}, {-1, 0}, {0, 1, 2}, {}}) {
    const std::vector<float> got = flip(x, axes).to_vector<float>();
    for (int64_t e = 0; e < x.numel(); ++e) {
      std::vector<int64_t> i = Unravel(e, x.shape());
      for (int a : axes) {
        const int axis = a < 0 ? a + 3 : a;
        i[axis] = x.shape()[axis] - 1 - i[axis];
      }
      EXPECT_EQ(got[e], static_cast<float>((i[0] * 3 + i[1]) * 4 + i[2])) << e;
    }
  }
  EXPECT_EQ(flip(Iota({1, 3}), {0}).node_ptr(), Iota({1, 3}).node_ptr());  // extent 1
  testing::ExpectError([&] { flip(x, {1, -2}); }, {"tessel::flip:", "twice"});
  testing::ExpectError([&] { flip(x, {3}); }, {"tessel::flip:", "f32[2,3,4]"});
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

// Many tensors are concatenated by concats of at most 16 operands (a kernel evaluates every
// operand of a concat at each position): the values and the promoted type are a flat
// concat's.
TEST(StructureTest, ConcatOfManyTensors) {
  std::vector<Tensor> parts;
  std::vector<float> expected;
  for (int i = 0; i < 300; ++i) {
    const int64_t n = i % 3;  // 0, 1 or 2 rows: 300 in all
    const DType dtype = i == 150 ? DType::kF32 : i % 2 ? DType::kI32 : DType::kBool;
    parts.push_back(full({n, 2}, i % 2 ? i : 1, dtype, Device::kCPU));
    for (int64_t e = 0; e < 2 * n; ++e) expected.push_back(i == 150 ? 150 : i % 2 ? i : 1);
  }
  const Tensor y = concat(parts, 0);
  EXPECT_EQ(y.dtype(), DType::kF32);
  EXPECT_EQ(y.shape(), (Shape{300, 2}));
  EXPECT_LE(y.node().inputs().size(), 16u);
  EXPECT_EQ(y.to_vector<float>(), expected);
}

TEST(StructureTest, ViewsFeedArithmetic) {
  Tensor x = Iota({3, 4});
  Tensor z = transpose(x) + reshape(slice(x, 1, 0, 1), {1, 3});  // [4,3] + [1,3]
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{0, 8, 16, 1, 9, 17, 2, 10, 18, 3, 11, 19}));
}

}  // namespace
}  // namespace tessel
