// The structural operations composed of views, against element-by-element reference code on
// the CPU, and their errors.
#include "ops/structure_composite.h"

#include <limits>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::ExpectError;
using testing::Unravel;

// 0, 1, 2, ... in `shape`.
Tensor Iota(const Shape& shape, DType dtype = DType::kF32) {
  std::vector<float> v(shape.numel());
  std::iota(v.begin(), v.end(), 0.0f);
  return from_vector(v, shape, dtype, Device::kCPU);
}

TEST(StructureCompositeTest, SqueezeUnsqueezeStack) {
  Tensor x = Iota({2, 1, 3});
  EXPECT_EQ(squeeze(x, 1).shape(), Shape({2, 3}));
  EXPECT_EQ(squeeze(x, -2).shape(), Shape({2, 3}));
  EXPECT_EQ(squeeze(x, 0).shape(), x.shape());  // extent 2: unchanged, as in PyTorch
  EXPECT_EQ(unsqueeze(x, 0).shape(), Shape({1, 2, 1, 3}));
  EXPECT_EQ(unsqueeze(x, -1).shape(), Shape({2, 1, 3, 1}));
  EXPECT_EQ(unsqueeze(x, 3).shape(), Shape({2, 1, 3, 1}));
  Tensor a = Iota({2, 3}), b = Iota({2, 3}) + 10.0;
  Tensor s = stack({a, b}, 1);  // s[i][k][j] = (k ? b : a)[i][j]
  ASSERT_EQ(s.shape(), Shape({2, 2, 3}));
  const std::vector<float> got = s.to_vector<float>();
  for (int64_t e = 0; e < 12; ++e) {
    const std::vector<int64_t> i = Unravel(e, s.shape());
    EXPECT_EQ(got[e], static_cast<float>(i[0] * 3 + i[2] + 10 * i[1])) << e;
  }
  EXPECT_EQ(stack({a, b}, -1).shape(), Shape({2, 3, 2}));
}

TEST(StructureCompositeTest, SplitAndChunk) {
  Tensor x = Iota({7, 2});
  std::vector<Tensor> p = split(x, {3, 0, 4}, 0);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(p[1].shape(), Shape({0, 2}));
  EXPECT_EQ(p[2].to_vector<float>(), (std::vector<float>{6, 7, 8, 9, 10, 11, 12, 13}));
  std::vector<Tensor> c = chunk(x, 3, 0);  // 3, 3, 1 rows
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[2].to_vector<float>(), (std::vector<float>{12, 13}));
  EXPECT_EQ(chunk(Iota({6}), 4, 0).size(), 3u);  // 2, 2, 2: torch.chunk's fewer pieces
  EXPECT_EQ(chunk(Iota({0}), 2, 0).size(), 2u);
  EXPECT_EQ(chunk(x, 1, -1)[0].shape(), x.shape());
}

TEST(StructureCompositeTest, PadAndCrop) {
  Tensor x = Iota({2, 3});
  Tensor y = pad(x, {1, 0}, {0, 2}, -1);
  ASSERT_EQ(y.shape(), Shape({3, 5}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{-1, -1, -1, -1, -1,  //
                                                      0, 1, 2, -1, -1,     //
                                                      3, 4, 5, -1, -1}));
  Tensor z = pad(x, {0, -1}, {-1, 1});  // negative entries crop
  EXPECT_EQ(z.shape(), Shape({1, 3}));
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{1, 2, 0}));
  Tensor b = pad(from_vector(std::vector<bool>{true}, {1}, DType::kBool, Device::kCPU), {1}, {1});
  EXPECT_EQ(b.dtype(), DType::kBool);
  EXPECT_EQ(b.to_vector<uint8_t>(), (std::vector<uint8_t>{0, 1, 0}));
}

TEST(StructureCompositeTest, RepeatTilesLikePyTorch) {
  Tensor x = Iota({2, 3});
  Tensor r = repeat(x, {2, 1, 2});  // a new leading axis, rows as they are, columns twice
  ASSERT_EQ(r.shape(), Shape({2, 2, 6}));
  const std::vector<float> got = r.to_vector<float>();
  for (int64_t e = 0; e < r.numel(); ++e) {
    const std::vector<int64_t> i = Unravel(e, r.shape());
    EXPECT_EQ(got[e], static_cast<float>(i[1] * 3 + i[2] % 3)) << e;
  }
  EXPECT_EQ(repeat(x, {0, 1}).shape(), Shape({0, 3}));
}

TEST(StructureCompositeTest, TrianglesOfTheLastTwoAxes) {
  Tensor x = Iota({2, 3, 4}) + 1.0;
  for (int64_t d : {-4, -1, 0, 1, 3, 100}) {
    const std::vector<float> lower = tril(x, d).to_vector<float>();
    const std::vector<float> upper = triu(x, d).to_vector<float>();
    for (int64_t e = 0; e < x.numel(); ++e) {
      const std::vector<int64_t> i = Unravel(e, x.shape());
      const float v = static_cast<float>(e + 1);
      EXPECT_EQ(lower[e], i[2] - i[1] <= d ? v : 0) << d << " " << e;
      EXPECT_EQ(upper[e], i[2] - i[1] >= d ? v : 0) << d << " " << e;
    }
  }
  EXPECT_EQ(tril(Iota({3, 3}, DType::kBF16)).dtype(), DType::kBF16);
  // A causal mask, as attention builds it: scores above the diagonal become -1e9.
  const Tensor zero = zeros({}, DType::kF32, Device::kCPU);
  const Tensor above = eq(tril(ones({4, 4}, DType::kF32, Device::kCPU)), zero);
  Tensor masked = where(above, full({}, -1e9, DType::kF32, Device::kCPU), Iota({4, 4}));
  EXPECT_EQ(masked.to_vector<float>()[1], -1e9f);
  EXPECT_EQ(masked.to_vector<float>()[4], 4.0f);
}

// Views and index comparisons: a chain of them with arithmetic plans as one kernel.
TEST(StructureCompositeTest, ChainsFuseIntoOneKernel) {
  Tensor x = randn({64, 64}, 1, DType::kF32, Device::kCPU);
  Tensor row = pad(slice(x, 0, 0, 1), {0, 0}, {0, 1});
  Tensor y = pad(tril(x) * 2.0, {1, 0}, {0, 1}) + repeat(row, {65, 1});
  EXPECT_EQ(explain({y}).rfind("1 kernel ", 0), 0u) << explain({y});
}

TEST(StructureCompositeTest, BadCallsNameTheOpAndShapes) {
  Tensor x = Iota({2, 3});
  ExpectError([&] { squeeze(x, 2); }, {"tessel::squeeze:", "f32[2,3]"});
  ExpectError([&] { unsqueeze(x, 4); }, {"tessel::unsqueeze:", "axis 4", "f32[2,3]"});
  ExpectError([&] { stack({x, Iota({3, 2})}, 0); }, {"tessel::stack:", "f32[2,3]", "f32[3,2]"});
  ExpectError([&] { stack({}, 0); }, {"tessel::stack:", "at least one"});
  ExpectError([&] { split(x, {1, 1}, 1); }, {"tessel::split:", "add up to 2", "extent 3"});
  ExpectError([&] { split(x, {-1, 3}, 0); }, {"tessel::split:", "negative"});
  ExpectError([&] { chunk(x, 0, 0); }, {"tessel::chunk:", "at least one"});
  ExpectError([&] { pad(x, {1}, {1}); }, {"tessel::pad:", "one entry per axis", "f32[2,3]"});
  ExpectError([&] { pad(x, {-2, 0}, {-1, 0}); }, {"tessel::pad:", "removes 3", "has 2"});
  // Sizes and amounts at int64's edges: their sums once wrapped (a split of [INT64_MAX,
  // INT64_MAX, 4] over an extent of 2 gave three parts; pad by INT64_MIN cropped nothing).
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  ExpectError([&] { split(x, {kMax, kMax, 4}, 0); }, {"tessel::split:", "more than", "2"});
  ExpectError([&] { pad(x, {-kMax - 1, 0}, {0, 0}); }, {"tessel::pad:", "more than the 2"});
  ExpectError([&] { pad(x, {0, 0}, {0, -kMax - 1}); }, {"tessel::pad:", "more than the 3"});
  ExpectError([&] { repeat(x, {2}); }, {"tessel::repeat:", "f32[2,3]"});
  ExpectError([&] { repeat(x, {1, -1}); }, {"tessel::repeat:", "[1,-1]"});
  ExpectError([&] { tril(Iota({3})); }, {"tessel::tril:", "rank >= 2", "f32[3]"});
  ExpectError([&] { triu(Tensor()); }, {"tessel::triu"});
}

}  // namespace
}  // namespace tessel
