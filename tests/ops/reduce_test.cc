// Reductions against reference loops: every axis subset of a rank-3 tensor, negative axes,
// keepdim, every dtype, NaN propagation and empty inputs.
#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::ExpectClose;
using testing::RandomTensor;
using testing::Tolerance;
using testing::Unravel;

enum class Kind { kSum, kMean, kMax, kMin };

Tensor Apply(Kind k, const Tensor& x, const std::vector<int>& axes, bool keepdim) {
  switch (k) {
    case Kind::kSum:
      return sum(x, axes, keepdim);
    case Kind::kMean:
      return mean(x, axes, keepdim);
    case Kind::kMax:
      return max(x, axes, keepdim);
    case Kind::kMin:
      return min(x, axes, keepdim);
  }
  return x;
}

// Reduces `values` of `shape` over the axes whose bit is set in `mask`, by plain loops.
std::vector<double> Reference(Kind k, const std::vector<double>& values, const Shape& shape,
                              unsigned mask) {
  Shape::Dims out_dims;
  for (int d = 0; d < shape.rank(); ++d) {
    if (!(mask >> d & 1)) out_dims.push_back(shape[d]);
  }
  const Shape out(out_dims);
  const bool extremum = k == Kind::kMax || k == Kind::kMin;
  const double init = k == Kind::kMax   ? -std::numeric_limits<double>::infinity()
                      : k == Kind::kMin ? std::numeric_limits<double>::infinity()
                                        : 0;
  std::vector<double> acc(out.numel(), init), count(out.numel(), 0);
  for (int64_t i = 0; i < shape.numel(); ++i) {
    const std::vector<int64_t> index = Unravel(i, shape);
    int64_t o = 0;
    for (int d = 0; d < shape.rank(); ++d) {
      if (!(mask >> d & 1)) o = o * shape[d] + index[d];
    }
    const double v = values[i];
    if (!extremum) {
      acc[o] += v;
    } else if (std::isnan(v) || std::isnan(acc[o])) {
      acc[o] = NAN;
    } else {
      acc[o] = k == Kind::kMax ? std::max(acc[o], v) : std::min(acc[o], v);
    }
    count[o] += 1;
  }
  if (k == Kind::kMean) {
    for (size_t o = 0; o < acc.size(); ++o) acc[o] /= count[o];
  }
  return acc;
}

TEST(ReduceTest, EveryAxisSubsetMatchesReference) {
  const Shape shape{3, 4, 5};
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    auto x = RandomTensor(shape, dtype, 5);
    for (Kind k : {Kind::kSum, Kind::kMean, Kind::kMax, Kind::kMin}) {
      for (unsigned mask = 1; mask < 8; ++mask) {
        for (bool keepdim : {false, true}) {
          std::vector<int> axes;
          for (int d = 0; d < 3; ++d) {
            if (mask >> d & 1) axes.push_back(d - 3);  // negative axes
          }
          SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " kind " << int(k) << " mask "
                                            << mask << " keepdim " << keepdim);
          Tensor y = Apply(k, x.tensor, axes, keepdim);
          EXPECT_EQ(y.dtype(), dtype);
          EXPECT_EQ(y.rank(), keepdim ? 3 : 3 - static_cast<int>(axes.size()));
          // Sums of values in [-2, 2): allow rounding of the result and of a partial sum.
          ExpectClose(y.to_vector<float>(), Reference(k, x.values, shape, mask), Tolerance(dtype),
                      dtype == DType::kF32 ? 1e-5 : 2e-2);
        }
      }
    }
  }
}

TEST(ReduceTest, EmptyAxesMeanAll) {
  Tensor x = from_vector({1, 2, 3, 4}, {2, 2}, DType::kF32, Device::kCPU);
  EXPECT_EQ(sum(x).shape(), Shape{});
  EXPECT_EQ(sum(x).to_vector<float>()[0], 10);
  EXPECT_EQ(sum(x, {}, true).shape(), (Shape{1, 1}));
  EXPECT_EQ(mean(x).to_vector<float>()[0], 2.5f);
  EXPECT_EQ(max(x).to_vector<float>()[0], 4);
  EXPECT_EQ(min(x).to_vector<float>()[0], 1);
}

TEST(ReduceTest, IntegersAndBools) {
  Tensor i = from_vector(std::vector<int32_t>{5, -3, 7, 1}, {2, 2}, DType::kI32, Device::kCPU);
  EXPECT_EQ(sum(i, {1}).dtype(), DType::kI32);
  EXPECT_EQ(sum(i, {1}).to_vector<int32_t>(), (std::vector<int32_t>{2, 8}));
  EXPECT_EQ(max(i, {0}).to_vector<int32_t>(), (std::vector<int32_t>{7, 1}));
  Tensor b = from_vector(std::vector<bool>{true, false, true}, {3}, DType::kBool, Device::kCPU);
  EXPECT_EQ(sum(b).dtype(), DType::kI32);
  EXPECT_EQ(sum(b).to_vector<int32_t>()[0], 2);
  EXPECT_EQ(max(b).dtype(), DType::kBool);
}

TEST(ReduceTest, HalfSumsAccumulateWide) {
  // 100,000 ones: a bf16 accumulator would stall at 256, an f16 one overflow the mean.
  Tensor x = ones({100000}, DType::kBF16, Device::kCPU);
  EXPECT_EQ(mean(x).to_vector<float>()[0], 1);
  EXPECT_EQ(sum(x).to_vector<float>()[0], 99840);  // 100,000 rounded to bf16
  EXPECT_EQ(mean(ones({100000}, DType::kF16, Device::kCPU)).to_vector<float>()[0], 1);
}

TEST(ReduceTest, NanPropagatesThroughExtrema) {
  Tensor x = from_vector({1, NAN, 3, 4}, {2, 2}, DType::kF32, Device::kCPU);
  std::vector<float> m = max(x, {1}).to_vector<float>();
  EXPECT_TRUE(std::isnan(m[0]));
  EXPECT_EQ(m[1], 4);
  EXPECT_TRUE(std::isnan(min(x, {0}).to_vector<float>()[1]));
}

TEST(ReduceTest, EmptyInputs) {
  Tensor x = zeros({0, 3}, DType::kF32, Device::kCPU);
  EXPECT_EQ(sum(x, {0}).to_vector<float>(), (std::vector<float>{0, 0, 0}));
  EXPECT_TRUE(std::isnan(mean(x, {0}).to_vector<float>()[0]));
  EXPECT_EQ(max(x, {1}).shape(), Shape{0});
}

TEST(ReduceTest, ReducesViews) {
  Tensor x = reshape(arange(24, DType::kF32, Device::kCPU), {2, 3, 4});
  Tensor t = permute(x, {2, 0, 1});  // [4,2,3]
  EXPECT_EQ(sum(t, {0}).to_vector<float>(), sum(x, {2}).to_vector<float>());
  EXPECT_EQ(sum(slice(x, 2, 1, 3), {-1}).to_vector<float>(),
            (std::vector<float>{3, 11, 19, 27, 35, 43}));
}

}  // namespace
}  // namespace tessel
