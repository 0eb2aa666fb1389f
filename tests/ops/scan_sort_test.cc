// cumsum, cumprod, sort, topk, argsort, argmax and argmin against loops over the same values,
// along every axis, with ties, NaN and integers past 2^53, and their errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::ExpectClose;
using testing::ExpectError;
using testing::RandomTensor;

constexpr Device kCpu = Device::kCPU;

// For every line of `shape` along `axis`: f(positions of the line's elements, row-major).
template <typename F>
void ForEachLine(const Shape& shape, int axis, F f) {
  const Shape::Dims strides = shape.Strides();
  for (int64_t start = 0; start < shape.numel(); ++start) {
    if ((start / strides[axis]) % shape[axis] != 0) continue;  // not the line's first element
    std::vector<int64_t> line;
    for (int64_t k = 0; k < shape[axis]; ++k) line.push_back(start + k * strides[axis]);
    f(line);
  }
}

TEST(ScanSortTest, CumsumAndCumprodAlongEveryAxis) {
  const Shape shape{3, 4, 5};
  auto x = RandomTensor(shape, DType::kF32, 5, 0.5f, 1.5f);
  for (int axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE(absl::StrCat("axis ", axis));
    std::vector<double> sums(shape.numel()), products(shape.numel());
    ForEachLine(shape, axis, [&](const std::vector<int64_t>& line) {
      double s = 0, p = 1;
      for (int64_t i : line) {
        sums[i] = s += x.values[i];
        products[i] = p *= x.values[i];
      }
    });
    ExpectClose(cumsum(x.tensor, axis).to_vector<float>(), sums, 1e-6);
    ExpectClose(cumprod(x.tensor, axis - 3).to_vector<float>(), products, 1e-6);
  }
  Tensor i = from_vector(std::vector<int32_t>{1, 2, 3, 4}, {4}, DType::kI32, kCpu);
  EXPECT_EQ(cumsum(i, 0).dtype(), DType::kI64);
  EXPECT_EQ(cumsum(i, 0).to_vector<int64_t>(), (std::vector<int64_t>{1, 3, 6, 10}));
  EXPECT_EQ(cumprod(i, 0).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 6, 24}));
  Tensor h = from_vector({1, 2, 3}, {3}, DType::kBF16, kCpu);
  EXPECT_EQ(cumsum(h, 0).dtype(), DType::kBF16);
  EXPECT_EQ(cumsum(full({}, 2, DType::kF32, kCpu), 0).to_vector<float>(), (std::vector<float>{2}));
  EXPECT_EQ(cumsum(zeros({0, 3}, DType::kF32, kCpu), 0).shape(), Shape({0, 3}));
}

TEST(ScanSortTest, SortIsStableWithNanLargest) {
  Tensor x = from_vector({3, NAN, 1, 3, -2, 1}, {6}, DType::kF32, kCpu);
  auto [up, up_idx] = sort(x);
  EXPECT_EQ(up_idx.dtype(), DType::kI64);
  EXPECT_EQ(up_idx.to_vector<int64_t>(), (std::vector<int64_t>{4, 2, 5, 0, 3, 1}));
  const std::vector<float> v = up.to_vector<float>();
  EXPECT_EQ(std::vector<float>(v.begin(), v.end() - 1), (std::vector<float>{-2, 1, 1, 3, 3}));
  EXPECT_TRUE(std::isnan(v.back()));
  auto [down, down_idx] = sort(x, 0, /*descending=*/true);
  EXPECT_EQ(down_idx.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 3, 2, 5, 4}));
  EXPECT_EQ(argsort(x, -1, true).to_vector<int64_t>(), down_idx.to_vector<int64_t>());
}

TEST(ScanSortTest, TopkAlongEveryAxisMatchesAFullSort) {
  const Shape shape{4, 6, 5};
  auto x = RandomTensor(shape, DType::kF32, 9);
  for (int axis = 0; axis < 3; ++axis) {
    for (bool largest : {true, false}) {
      SCOPED_TRACE(absl::StrCat("axis ", axis, largest ? " largest" : " smallest"));
      const int64_t k = shape[axis] - 2;
      auto [values, indices] = topk(x.tensor, k, axis, largest);
      Shape::Dims dims = shape.dims();
      dims[axis] = k;
      ASSERT_EQ(values.shape(), Shape(dims));
      const std::vector<float> got = values.to_vector<float>();
      const std::vector<int64_t> at = indices.to_vector<int64_t>();
      const Shape out(dims);
      std::vector<std::vector<int64_t>> out_lines;
      ForEachLine(out, axis, [&](const std::vector<int64_t>& l) { out_lines.push_back(l); });
      size_t n = 0;
      ForEachLine(shape, axis, [&](const std::vector<int64_t>& line) {
        std::vector<double> want;
        for (int64_t i : line) want.push_back(x.values[i]);
        std::sort(want.begin(), want.end());
        if (largest) std::reverse(want.begin(), want.end());
        const std::vector<int64_t>& ol = out_lines[n++];
        for (int64_t j = 0; j < k; ++j) {
          EXPECT_EQ(got[ol[j]], want[j]);
          EXPECT_EQ(x.values[line[at[ol[j]]]], want[j]);  // the index points at the value
        }
      });
    }
  }
}

TEST(ScanSortTest, ArgmaxAndArgminTakeTheFirstOfTies) {
  Tensor x = from_vector({1, 5, 5, -3, 2, -3}, {2, 3}, DType::kF32, kCpu);
  EXPECT_EQ(argmax(x, 1).to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(argmin(x, 1).to_vector<int64_t>(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(argmax(x, 0).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(argmin(x, 0, /*keepdim=*/true).shape(), Shape({1, 3}));
  EXPECT_EQ(argmin(x, -2).to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 1}));
  Tensor n = from_vector({1, NAN, 7, NAN}, {4}, DType::kF32, kCpu);
  EXPECT_EQ(argmax(n, 0).to_vector<int64_t>()[0], 1);
  EXPECT_EQ(argmin(n, 0).to_vector<int64_t>()[0], 1);
  const int64_t big = (int64_t{1} << 60) + 1;
  Tensor w = from_vector(std::vector<int64_t>{big - 1, big, big - 2}, {3}, DType::kI64, kCpu);
  EXPECT_EQ(argmax(w, 0).to_vector<int64_t>()[0], 1);
  EXPECT_EQ(sort(w).second.to_vector<int64_t>(), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(argmax(full({}, 3, DType::kF32, kCpu), 0).to_vector<int64_t>()[0], 0);
}

TEST(ScanSortTest, BadCallsAreErrorsNamingTheOp) {
  Tensor x = zeros({2, 3}, DType::kF32, kCpu);
  ExpectError([&] { argmax(x, 2); }, {"argmax", "axis 2 is out of range", "f32[2,3]"});
  ExpectError([&] { argmin(zeros({2, 0}, DType::kF32, kCpu), 1); }, {"argmin", "empty axis 1"});
  ExpectError([&] { argmax(zeros({2}, DType::kBool, kCpu), 0); }, {"argmax", "bool"});
  ExpectError([&] { topk(x, 4, 1); }, {"topk", "k = 4 is out of range", "f32[2,3]"});
  ExpectError([&] { topk(x, -1, 0); }, {"topk", "k = -1"});
  ExpectError([&] { cumsum(x, -3); }, {"cumsum", "axis -3"});
  ExpectError([&] { sort(x, 5); }, {"sort", "axis 5"});
  // Recorded on CUDA (no GPU needed to record): sort kernels, up to lines of 2^29.
  Tensor g = zeros({2, 3}, DType::kF32, Device::kCUDA);
  EXPECT_EQ(argmax(g, 1).dtype(), DType::kI64);  // composed of reductions
  EXPECT_EQ(cumsum(g, 1).dtype(), DType::kF32);  // a scan kernel
  EXPECT_EQ(topk(g, 3, 1).second.dtype(), DType::kI64);
  EXPECT_EQ(sort(g, 0).first.shape(), Shape({2, 3}));
  ExpectError(
      [&] {
        sort(zeros({2, (int64_t{1} << 29) + 1}, DType::kF32, Device::kCUDA), 1);
      },
      {"sort", "536870913 elements", "on CUDA is not built yet"});
}

}  // namespace
}  // namespace tessel
