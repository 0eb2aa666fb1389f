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

// As in PyTorch, a scalar's axis 0 (or -1) names no axis: reductions and normalizations over
// it keep the scalar.
TEST(ReduceTest, AScalarsAxisZeroNamesNoAxis) {
  const Tensor s = full({}, 3.0, DType::kF32, Device::kCPU);
  for (const Tensor& t : {sum(s, {0}), sum(s, {-1}), max(s, {0}, true), mean(s, {0})}) {
    EXPECT_EQ(t.shape(), Shape{});
    EXPECT_EQ(t.to_vector<float>(), std::vector<float>{3});
  }
  EXPECT_EQ(softmax(s).to_vector<float>(), std::vector<float>{1});
  EXPECT_EQ(log_softmax(s, 0).to_vector<float>(), std::vector<float>{0});
  EXPECT_EQ(softmax(s).shape(), Shape{});
  testing::ExpectError([&] { sum(s, {1}); }, {"tessel::sum:", "f32[]", "axis 0 or -1"});
  testing::ExpectError([&] { sum(s, {0, -1}); }, {"tessel::sum:", "f32[]"});
  testing::ExpectError([&] { softmax(s, 1); }, {"tessel::softmax:", "out of range"});
}

TEST(ReduceTest, IntegersAndBools) {
  Tensor i = from_vector(std::vector<int32_t>{5, -3, 7, 1}, {2, 2}, DType::kI32, Device::kCPU);
  // Sums of i32 and bool are i64, as PyTorch's.
  EXPECT_EQ(sum(i, {1}).dtype(), DType::kI64);
  EXPECT_EQ(sum(i, {1}).to_vector<int64_t>(), (std::vector<int64_t>{2, 8}));
  EXPECT_EQ(max(i, {0}).dtype(), DType::kI32);
  EXPECT_EQ(max(i, {0}).to_vector<int32_t>(), (std::vector<int32_t>{7, 1}));
  Tensor b = from_vector(std::vector<bool>{true, false, true}, {3}, DType::kBool, Device::kCPU);
  EXPECT_EQ(sum(b).dtype(), DType::kI64);
  EXPECT_EQ(sum(b).to_vector<int64_t>()[0], 2);
  EXPECT_EQ(max(b).dtype(), DType::kBool);
  // An i32 sum past 2^31 does not wrap.
  Tensor big = full({3}, 2147483647.0, DType::kI32, Device::kCPU);
  EXPECT_EQ(sum(big).to_vector<int64_t>()[0], 3 * int64_t{2147483647});
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

// Reference statistics of each row of a [rows, cols] matrix given row-major.
struct RowStats {
  double mean, var, lse;
};
RowStats Stats(const std::vector<float>& v, int64_t row, int64_t cols, int64_t correction) {
  double m = 0, big = -INFINITY;
  for (int64_t c = 0; c < cols; ++c) m += v[row * cols + c];
  m /= static_cast<double>(cols);
  double ss = 0, se = 0;
  for (int64_t c = 0; c < cols; ++c) {
    ss += (v[row * cols + c] - m) * (v[row * cols + c] - m);
    big = std::max(big, static_cast<double>(v[row * cols + c]));
  }
  for (int64_t c = 0; c < cols; ++c) se += std::exp(v[row * cols + c] - big);
  return {m, ss / static_cast<double>(std::max<int64_t>(0, cols - correction)), big + std::log(se)};
}

TEST(ReduceAdditionsTest, VarStdAndLogsumexpAgainstReference) {
  const std::vector<float> v = testing::RandomValues(6 * 50, 3, -40, 40);
  Tensor x = from_vector(v, {6, 50}, DType::kF32, Device::kCPU);
  std::vector<double> var0, var1, std1, lse;
  for (int64_t r = 0; r < 6; ++r) {
    var1.push_back(Stats(v, r, 50, 1).var);
    var0.push_back(Stats(v, r, 50, 0).var);
    std1.push_back(std::sqrt(var1.back()));
    lse.push_back(Stats(v, r, 50, 0).lse);
  }
  testing::ExpectClose(var(x, {1}).to_vector<float>(), var1, 1e-5);
  testing::ExpectClose(var(x, {-1}, true, 0).to_vector<float>(), var0, 1e-5);
  EXPECT_EQ(var(x, {1}, true).shape(), Shape({6, 1}));
  testing::ExpectClose(std(x, {1}).to_vector<float>(), std1, 1e-5);
  testing::ExpectClose(logsumexp(x, {1}).to_vector<float>(), lse, 1e-5);
  EXPECT_EQ(logsumexp(x, {1}, true).shape(), Shape({6, 1}));
}

TEST(ReduceAdditionsTest, StableWhereNaiveFormulasFail) {
  // Offsets of 1e8 in f32: E[x^2] - E[x]^2 would lose every digit; about the mean it is 2/3
  // (values 1e8 - 1, 1e8, 1e8 + 1 up to f32 spacing 8: use spacing 8 exactly).
  Tensor x = from_vector({1e8f - 8, 1e8f, 1e8f + 8}, {3}, DType::kF32, Device::kCPU);
  EXPECT_FLOAT_EQ(var(x).to_vector<float>()[0], 64.0f);
  EXPECT_FLOAT_EQ(var(cast(x - 1e8, DType::kBF16)).to_vector<float>()[0], 64.0f);
  // exp(1000) overflows; logsumexp does not. Rows of -inf and of +inf stay infinite.
  const float inf = std::numeric_limits<float>::infinity();
  Tensor big = from_vector({1000, 1000, -inf, -inf, inf, 1}, {3, 2}, DType::kF32, Device::kCPU);
  const std::vector<float> l = logsumexp(big, {1}).to_vector<float>();
  EXPECT_FLOAT_EQ(l[0], 1000 + std::log(2.0f));
  EXPECT_EQ(l[1], -inf);
  EXPECT_EQ(l[2], inf);
  EXPECT_EQ(logsumexp(zeros({2, 0}, DType::kF32, Device::kCPU), {1}).to_vector<float>(),
            (std::vector<float>{-inf, -inf}));
}

TEST(ReduceAdditionsTest, AnyAndAll) {
  Tensor x = from_vector({1, 2, -3, 0, 0, 5}, {2, 3}, DType::kF32, Device::kCPU);
  EXPECT_EQ(any(x, {1}).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 1}));
  EXPECT_EQ(all(x, {1}).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(any(x, {0}).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 1, 1}));
  EXPECT_EQ(all(x, {0}).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 0, 1}));
  EXPECT_EQ(any(x * 0.0, {1}).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 0}));
  EXPECT_EQ(any(x).dtype(), DType::kBool);
  EXPECT_EQ(all(x, {0, 1}, true).shape(), Shape({1, 1}));
  EXPECT_EQ(all(from_vector(std::vector<bool>{true, true}, {2}, DType::kBool, Device::kCPU))
                .to_vector<uint8_t>(),
            (std::vector<uint8_t>{1}));
  Tensor empty = zeros({3, 0}, DType::kI32, Device::kCPU);
  EXPECT_EQ(any(empty, {1}).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 0, 0}));
  EXPECT_EQ(all(empty, {1}).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 1, 1}));
}

TEST(ReduceAdditionsTest, Errors) {
  Tensor i = zeros({2}, DType::kI32, Device::kCPU);
  testing::ExpectError([&] { var(i); }, {"tessel::var:", "floating", "i32[2]"});
  testing::ExpectError([&] { logsumexp(i); }, {"tessel::logsumexp:", "i32[2]"});
  testing::ExpectError([&] { any(i, {1}); }, {"tessel::any:", "i32[2]"});
  testing::ExpectError([&] { std(Tensor()); }, {"tessel::std"});
}

TEST(ReduceAdditionsTest, ProdAgainstReference) {
  const std::vector<float> v = testing::RandomValues(4 * 3 * 5, 8, 0.5f, 1.5f);
  Tensor x = from_vector(v, {4, 3, 5}, DType::kF32, Device::kCPU);
  std::vector<double> want(3, 1.0);
  for (int64_t e = 0; e < 60; ++e) want[(e / 5) % 3] *= v[e];
  testing::ExpectClose(prod(x, {0, 2}).to_vector<float>(), want, 1e-6);
  EXPECT_EQ(prod(x, {1}, true).shape(), Shape({4, 1, 5}));
  EXPECT_EQ(prod(zeros({2, 0}, DType::kF32, Device::kCPU), {1}).to_vector<float>(),
            (std::vector<float>{1, 1}));  // the empty product
  // Products of i32 are i64 (as PyTorch's): 65536 * 65536 = 2^32, 3 * -2^31 = -3 * 2^31.
  Tensor i = from_vector(std::vector<int32_t>{65536, 65536, 3, -2147483647 - 1}, {2, 2},
                         DType::kI32, Device::kCPU);
  EXPECT_EQ(prod(i, {1}).to_vector<int64_t>(),
            (std::vector<int64_t>{int64_t{1} << 32, -3 * (int64_t{1} << 31)}));
  Tensor b = from_vector(std::vector<bool>{true, true, false}, {3}, DType::kBool, Device::kCPU);
  EXPECT_EQ(prod(b).dtype(), DType::kI64);
  EXPECT_EQ(prod(b).to_vector<int64_t>(), (std::vector<int64_t>{0}));
  EXPECT_EQ(prod(from_vector({2, 3}, {2}, DType::kBF16, Device::kCPU)).dtype(), DType::kBF16);
}

}  // namespace
}  // namespace tessel
