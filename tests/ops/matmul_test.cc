// Matmul against triple loops in double: shapes, batch broadcasting, vectors, half dtypes
// and transposed views.
#include <cstdint>

#include "absl/base/casts.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::BroadcastSource;
using testing::ExpectClose;
using testing::RandomTensor;
using testing::Tolerance;
using testing::Unravel;

// Reference for (...,M,K) x (...,K,N) with broadcast batch dimensions.
std::vector<double> Reference(const std::vector<double>& a, const Shape& sa,
                              const std::vector<double>& b, const Shape& sb) {
  const int64_t m = sa[sa.rank() - 2], k = sa[sa.rank() - 1], n = sb[sb.rank() - 1];
  const Shape ba(absl::MakeConstSpan(sa.dims()).subspan(0, sa.rank() - 2));
  const Shape bb(absl::MakeConstSpan(sb.dims()).subspan(0, sb.rank() - 2));
  const Shape batch = *BroadcastShapes(ba, bb);
  std::vector<double> c(batch.numel() * m * n, 0);
  for (int64_t p = 0; p < batch.numel(); ++p) {
    const std::vector<int64_t> index = Unravel(p, batch);
    const int64_t pa = BroadcastSource(index, ba), pb = BroadcastSource(index, bb);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t l = 0; l < k; ++l) {
          acc += a[(pa * m + i) * k + l] * b[(pb * k + l) * n + j];
        }
        c[(p * m + i) * n + j] = acc;
      }
    }
  }
  return c;
}

TEST(MatmulTest, ShapesAndBatchesMatchReference) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{1, 1}, {1, 1}},    {{7, 13}, {13, 5}},        {{64, 33}, {33, 17}},
      {{3, 4, 5}, {5, 6}}, {{2, 1, 4, 5}, {3, 5, 2}}, {{5, 0}, {0, 3}},
  };
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (const auto& [sa, sb] : cases) {
      SCOPED_TRACE(std::string(DTypeName(dtype)) + " " + sa.ToString() + " x " + sb.ToString());
      auto a = RandomTensor(sa, dtype, 1);
      auto b = RandomTensor(sb, dtype, 2);
      Tensor c = matmul(a.tensor, b.tensor);
      EXPECT_EQ(c.dtype(), dtype);
      const int64_t k = sa[sa.rank() - 1];
      // Rounding of the result plus float accumulation of k products of size <= 4.
      ExpectClose(c.to_vector<float>(), Reference(a.values, sa, b.values, sb), Tolerance(dtype),
                  4e-7 * k * 4 + (dtype == DType::kF32 ? 0 : 4 * Tolerance(dtype)));
    }
  }
}

TEST(MatmulTest, TransposedViewsAreOperands) {
  auto a = RandomTensor({6, 4}, DType::kF32, 3);  // used as a^T: [4,6]
  auto b = RandomTensor({5, 6}, DType::kF32, 4);  // used as b^T: [6,5]
  Tensor c = matmul(transpose(a.tensor), transpose(b.tensor));
  std::vector<double> at(24), bt(30);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 4; ++j) at[j * 6 + i] = a.values[i * 4 + j];
    for (int j = 0; j < 5; ++j) bt[i * 5 + j] = b.values[j * 6 + i];
  }
  ExpectClose(c.to_vector<float>(), Reference(at, {4, 6}, bt, {6, 5}), 1e-5, 1e-5);
}

TEST(MatmulTest, VectorsFollowNumPy) {
  Tensor m = from_vector({1, 2, 3, 4, 5, 6}, {2, 3}, DType::kF32, Device::kCPU);
  Tensor v = from_vector({1, 0, -1}, {3}, DType::kF32, Device::kCPU);
  Tensor w = from_vector({1, 1}, {2}, DType::kF32, Device::kCPU);
  EXPECT_EQ(matmul(m, v).shape(), Shape{2});
  EXPECT_EQ(matmul(m, v).to_vector<float>(), (std::vector<float>{-2, -2}));
  EXPECT_EQ(matmul(w, m).to_vector<float>(), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(matmul(v, v).shape(), Shape{});
  EXPECT_EQ(matmul(v, v).to_vector<float>()[0], 2);
}

TEST(MatmulTest, MixedDtypesPromote) {
  Tensor a = ones({2, 3}, DType::kBF16, Device::kCPU);
  Tensor b = full({3, 2}, 0.5, DType::kF32, Device::kCPU);
  Tensor c = matmul(a, b);
  EXPECT_EQ(c.dtype(), DType::kF32);
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{1.5f, 1.5f, 1.5f, 1.5f}));
}

// Under MatmulPrecision::kTF32 an f32 matmul multiplies its operands as TF32: their 10
// leading mantissa bits, truncated, as Hopper's tensor cores read f32; 16-bit matmuls and
// later recordings under kHighest are exact as before.
TEST(MatmulTest, Tf32TruncatesOperandsWhenChosen) {
  // 1 + 2^-10 + 2^-11 keeps 1 + 2^-10 (rounding would give 1 + 2^-9); 1 + 2^-12 keeps 1.
  const float high = 1.0f + 0x1p-10f + 0x1p-11f, below = 1.0f + 0x1p-12f;
  Tensor a = from_vector({high, below}, {1, 2}, DType::kF32, Device::kCPU);
  Tensor b = from_vector({1, 1}, {2, 1}, DType::kF32, Device::kCPU);
  ASSERT_EQ(matmul_precision(), MatmulPrecision::kHighest);
  Tensor exact = matmul(a, b);
  set_matmul_precision(MatmulPrecision::kTF32);
  Tensor rounded = matmul(a, b);
  EXPECT_TRUE(absl::StrContains(PrintGraph({rounded}), "matmul f32[1,1] %0, %1 tf32=1"))
      << PrintGraph({rounded});
  Tensor half = matmul(cast(a, DType::kBF16), cast(b, DType::kBF16));
  set_matmul_precision(MatmulPrecision::kHighest);
  EXPECT_EQ(exact.to_vector<float>(), (std::vector<float>{high + below}));
  EXPECT_EQ(rounded.to_vector<float>(), (std::vector<float>{(1.0f + 0x1p-10f) + 1.0f}));
  EXPECT_EQ(half.to_vector<float>(), (std::vector<float>{2.0f}));

  // Random operands: against the reference on operands truncated the same way.
  const Shape sa{3, 17, 40}, sb{40, 9};
  testing::Sample x = RandomTensor(sa, DType::kF32, 1), y = RandomTensor(sb, DType::kF32, 2);
  auto tf32 = [](std::vector<double> v) {
    for (double& d : v) {
      uint32_t bits = absl::bit_cast<uint32_t>(static_cast<float>(d));
      d = absl::bit_cast<float>(bits & 0xffffe000u);
    }
    return v;
  };
  set_matmul_precision(MatmulPrecision::kTF32);
  Tensor c = matmul(x.tensor, y.tensor);
  set_matmul_precision(MatmulPrecision::kHighest);
  ExpectClose(c.to_vector<float>(), Reference(tf32(x.values), sa, tf32(y.values), sb), 1e-5, 1e-5);
}

// MatmulPrecision::kHigh (three TF32 products on tensor cores) stands for f32: recorded as
// tf32=3, computed in f32 by the CPU backend, bit for bit as under kHighest.
TEST(MatmulTest, HighPrecisionIsF32OnTheCpu) {
  const Shape sa{3, 17, 40}, sb{40, 9};
  testing::Sample x = RandomTensor(sa, DType::kF32, 3), y = RandomTensor(sb, DType::kF32, 4);
  const Tensor exact = matmul(x.tensor, y.tensor);
  set_matmul_precision(MatmulPrecision::kHigh);
  const Tensor high = matmul(x.tensor, y.tensor);
  set_matmul_precision(MatmulPrecision::kHighest);
  EXPECT_TRUE(absl::StrContains(PrintGraph({high}), "tf32=3")) << PrintGraph({high});
  EXPECT_EQ(high.to_vector<float>(), exact.to_vector<float>());
}

}  // namespace
}  // namespace tessel
