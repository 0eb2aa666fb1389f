// gather, index_select, embedding, scatter_add and one_hot against loops over the same
// values, every axis, i32 and i64 indices, and their errors: bad operands at record time, an
// index out of range at realize, naming the function, the index and the bound.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::ExpectError;
using testing::RandomTensor;

constexpr Device kCpu = Device::kCPU;

Tensor Ids(std::vector<int64_t> v, Shape shape, DType dtype = DType::kI64) {
  return from_vector(v, shape, dtype, kCpu);
}

// Row-major position of (i, j, k) in a [*, b, c] tensor.
int64_t At(const Shape& s, int64_t i, int64_t j, int64_t k) { return (i * s[1] + j) * s[2] + k; }

TEST(IndexingTest, GatherAlongEveryAxisMatchesLoops) {
  const Shape shape{3, 4, 5};
  auto x = RandomTensor(shape, DType::kF32, 1);
  for (int axis = 0; axis < 3; ++axis) {
    for (DType index_dtype : {DType::kI32, DType::kI64}) {
      SCOPED_TRACE(absl::StrCat("axis ", axis, " ", DTypeName(index_dtype)));
      const Shape is{2, 3, 4};  // no larger than x off the axis
      std::vector<int64_t> idx(is.numel());
      for (size_t n = 0; n < idx.size(); ++n) idx[n] = (n * 7 + 3) % shape[axis];
      Tensor out = gather(x.tensor, axis, Ids(idx, is, index_dtype));
      ASSERT_EQ(out.shape(), is);
      const std::vector<float> got = out.to_vector<float>();
      for (int64_t i = 0; i < is[0]; ++i) {
        for (int64_t j = 0; j < is[1]; ++j) {
          for (int64_t k = 0; k < is[2]; ++k) {
            int64_t p[3] = {i, j, k};
            p[axis] = idx[At(is, i, j, k)];
            EXPECT_EQ(got[At(is, i, j, k)], x.values[At(shape, p[0], p[1], p[2])]);
          }
        }
      }
    }
  }
}

TEST(IndexingTest, IndexSelectAndEmbeddingPickRows) {
  Tensor table = from_vector({0, 1, 10, 11, 20, 21, 30, 31}, {4, 2}, DType::kBF16, kCpu);
  Tensor rows = index_select(table, 0, Ids({3, 0, 3}, {3}));
  EXPECT_EQ(rows.shape(), Shape({3, 2}));
  EXPECT_EQ(rows.dtype(), DType::kBF16);
  EXPECT_EQ(rows.to_vector<float>(), (std::vector<float>{30, 31, 0, 1, 30, 31}));
  EXPECT_EQ(index_select(table, 1, Ids({1}, {1}, DType::kI32)).to_vector<float>(),
            (std::vector<float>{1, 11, 21, 31}));
  Tensor e = embedding(table, Ids({2, 1, 0, 2}, {2, 2}));
  EXPECT_EQ(e.shape(), Shape({2, 2, 2}));
  EXPECT_EQ(e.to_vector<float>(), (std::vector<float>{20, 21, 10, 11, 0, 1, 20, 21}));
  // Fuses with its pointwise consumers (one graph): scaled rows plus positions.
  Tensor pos = from_vector({0.5f, 0.25f}, {2}, DType::kF32, kCpu);
  EXPECT_EQ((embedding(table, Ids({1}, {1})) * 2.0 + pos).to_vector<float>(),
            (std::vector<float>{20.5f, 22.25f}));
  EXPECT_EQ(embedding(table, Ids({}, {0, 3})).shape(), Shape({0, 3, 2}));
}

TEST(IndexingTest, ScatterAddAccumulatesInIndexOrder) {
  Tensor x = zeros({2, 4}, DType::kF32, kCpu);
  Tensor index = Ids({0, 1, 0, 3, 3, 3}, {2, 3});
  Tensor src = from_vector({1, 2, 4, 8, 16, 32}, {2, 3}, DType::kF32, kCpu);
  EXPECT_EQ(scatter_add(x, 1, index, src).to_vector<float>(),
            (std::vector<float>{5, 2, 0, 0, 0, 0, 0, 56}));
  // Along axis 0, with src larger than index, and i64 data (wrapping adds).
  Tensor xi = from_vector(std::vector<int64_t>{1, 2, 3}, {1, 3}, DType::kI64, kCpu);
  Tensor si = from_vector(std::vector<int64_t>{10, 20, 30, 40, 50, 60}, {2, 3}, DType::kI64, kCpu);
  EXPECT_EQ(scatter_add(xi, 0, Ids({0, 0, 0, 0}, {2, 2}, DType::kI32), si).to_vector<int64_t>(),
            (std::vector<int64_t>{51, 72, 3}));
  // The same inputs give the same bits every time.
  auto big = RandomTensor({64, 32}, DType::kF32, 3);
  std::vector<int64_t> idx(64 * 32);
  for (size_t n = 0; n < idx.size(); ++n) idx[n] = (n * 13) % 5;
  Tensor a = scatter_add(zeros({5, 32}, DType::kF32, kCpu), 0, Ids(idx, {64, 32}), big.tensor);
  EXPECT_EQ(a.to_vector<float>(),
            scatter_add(zeros({5, 32}, DType::kF32, kCpu), 0, Ids(idx, {64, 32}), big.tensor)
                .to_vector<float>());
}

TEST(IndexingTest, OneHot) {
  Tensor h = one_hot(Ids({2, 0, 1}, {3}), 4);
  EXPECT_EQ(h.dtype(), DType::kF32);
  EXPECT_EQ(h.shape(), Shape({3, 4}));
  EXPECT_EQ(h.to_vector<float>(), (std::vector<float>{0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(one_hot(Ids({1}, {}, DType::kI32), 2).to_vector<float>(), (std::vector<float>{0, 1}));
  // Classes from the largest id, as PyTorch's one_hot(ids) (num_classes = -1).
  const Tensor inferred = one_hot(Ids({2, 0, 1, 2}, {2, 2}, DType::kI32));
  EXPECT_EQ(inferred.shape(), Shape({2, 2, 3}));
  EXPECT_EQ(inferred.to_vector<float>(), (std::vector<float>{0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
}

TEST(IndexingTest, BadOperandsAreErrorsWhenRecorded) {
  Tensor x = zeros({3, 4}, DType::kF32, kCpu);
  ExpectError(
      [&] {
        gather(x, 0, zeros({3, 4}, DType::kF32, kCpu));
      },
      {"gather", "the index must be i32 or i64", "f32[3,4]"});
  ExpectError([&] { gather(x, 0, Ids({0}, {1})); }, {"gather", "does not fit", "i64[1]"});
  ExpectError([&] { gather(x, 1, Ids({0, 0, 0, 0}, {4, 1})); }, {"gather", "does not fit"});
  ExpectError([&] { gather(x, 2, Ids({0}, {1, 1})); }, {"gather", "axis 2 is out of range"});
  ExpectError([&] { index_select(x, 0, Ids({0}, {1, 1})); }, {"index_select", "must be 1-D"});
  ExpectError([&] { embedding(zeros({4}, DType::kF32, kCpu), Ids({0}, {1})); },
              {"embedding", "[rows, width]", "f32[4]"});
  ExpectError(
      [&] {
        scatter_add(x, 0, Ids({0}, {1, 1}), zeros({1, 1}, DType::kBF16, kCpu));
      },
      {"scatter_add", "dtype", "bf16[1,1]"});
  ExpectError(
      [&] {
        scatter_add(x, 1, Ids({0, 0}, {1, 2}), zeros({1, 1}, DType::kF32, kCpu));
      },
      {"scatter_add", "does not fit"});
  ExpectError([&] { one_hot(Ids({0}, {1}), 0); }, {"one_hot", "classes must be positive"});
  ExpectError([&] { one_hot(Ids({}, {0})); }, {"one_hot", "empty ids", "i64[0]"});
  ExpectError([&] { one_hot(Ids({-3}, {1})).to_vector<float>(); },
              {"one_hot: id -3 is out of range for classes = 1"});
  // Recorded on CUDA (no GPU needed to record). An index line longer than CUDA sorts is
  // scatter_add's error, not that of the argsort it records inside.
  const int64_t long_line = int64_t{1} << 31;
  ExpectError(
      [&] {
        scatter_add(zeros({10}, DType::kF32, Device::kCUDA), 0,
                    zeros({long_line}, DType::kI64, Device::kCUDA),
                    zeros({long_line}, DType::kF32, Device::kCUDA));
      },
      {"tessel::scatter_add: index lines of 2147483648 elements", "i64[2147483648]"});
  Tensor g = zeros({3, 4}, DType::kF32, Device::kCUDA);
  Tensor gi = zeros({1, 2}, DType::kI64, Device::kCUDA);
  EXPECT_EQ(scatter_add(g, 0, gi, g).node().inputs().size(), 4u);
  ExpectError(
      [&] {
        scatter_add(g, 0, gi, zeros({1, 2}, DType::kF32, kCpu));
      },
      {"scatter_add", "devices"});
}

TEST(IndexingTest, AnIndexOutOfRangeIsAnErrorAtRealize) {
  Tensor table = zeros({5, 2}, DType::kF32, kCpu);
  ExpectError(
      [&] {
        embedding(table, Ids({1, 5}, {2})).to_vector<float>();
      },
      {"embedding", "index 5 is out of range", "size 5"});
  ExpectError([&] { index_select(table, 1, Ids({-1}, {1})).to_vector<float>(); },
              {"index_select", "index -1", "size 2"});
  ExpectError(
      [&] {
        gather(table, 0, Ids({7}, {1, 1})).to_vector<float>();
      },
      {"gather", "index 7", "f32[5,2]"});
  ExpectError(
      [&] {
        scatter_add(table, 0, Ids({9}, {1, 1}), zeros({1, 1}, DType::kF32, kCpu))
            .to_vector<float>();
      },
      {"scatter_add", "index 9", "size 5"});
  ExpectError([&] { one_hot(Ids({4}, {1}), 3).to_vector<float>(); },
              {"one_hot: id 4 is out of range for classes = 3"});
}

}  // namespace
}  // namespace tessel
