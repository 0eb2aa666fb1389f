// Matmul against triple loops in double: shapes, batch broadcasting, vectors, half dtypes
// and transposed views.
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

}  // namespace
}  // namespace tessel
