// The CUDA backend against the CPU backend (bounds: gpu_test.cc) on indices: argmax and
// argmin, gathers and embeddings, out-of-range indices, and one-hot picks and sums over
// wide classes. Part of the `gpu_test` binary; needs a GPU (Bazel tag "gpu").
#include <cmath>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/gpu/gpu_compare.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::Compare;
using testing::Data;
using testing::GpuTest;
using testing::Ids;

// argmax/argmin on the GPU (one fused reduction): ties (the first wins), NaN, every axis,
// short and long rows, with a prologue and a sibling reduction.
TEST_F(GpuTest, ArgmaxAndArgmin) {
  for (DType dt : {DType::kF32, DType::kBF16, DType::kI32}) {
    Compare([dt](Device d) {
      const Tensor x = cast(floor(Data({33, 700}, 5, DType::kF32, d, -4, 4)), dt);  // ties
      const Tensor nan =
          where(gt(Data({33, 700}, 6, DType::kF32, d), 1.9), NAN, zeros({}, DType::kF32, d));
      const Tensor with_nan = cast(x, DType::kF32) + nan;
      const Tensor long_rows = Data({3, 300000}, 7, dt, d);
      return std::vector<Tensor>{
          argmax(x, 1),         argmin(x, 0, true),
          argmax(with_nan, 1),  argmin(with_nan, 0),
          argmax(long_rows, 1), argmin(x * 2.0 - 1.0, 1) + cast(sum(x, {1}), DType::kI64)};
    });
  }
}

// Gathers on the GPU read where their indices point, inlined into their consumers: every
// axis, i32 and i64 indices, index_select, embedding with a pointwise epilogue and under a
// reduction, one_hot, and an index computed in the same kernel.
TEST_F(GpuTest, GathersAndEmbeddings) {
  for (DType dt : {DType::kF32, DType::kBF16, DType::kI64}) {
    Compare([dt](Device d) {
      const Tensor x = cast(Data({37, 53, 6}, 1, DType::kF32, d, -8, 8), dt);
      const Tensor table = cast(Data({1000, 96}, 2, DType::kF32, d), dt);
      const Tensor tokens = Ids({4, 33}, 3, 1000, DType::kI64, d);
      const Tensor pos = cast(Data({33, 96}, 4, DType::kF32, d), dt);
      return std::vector<Tensor>{
          gather(x, 0, Ids({20, 53, 6}, 5, 37, DType::kI32, d)),
          gather(x, 1, Ids({37, 7, 5}, 6, 53, DType::kI64, d)),
          gather(x, 2, Ids({10, 53, 9}, 7, 6, DType::kI32, d)),
          index_select(x, 1, Ids({70}, 8, 53, DType::kI64, d)),
          embedding(table, tokens) + pos,
          sum(embedding(table, tokens), {2}),
          one_hot(Ids({9}, 9, 11, DType::kI64, d), 11),
          gather(x - x, 1, argmax(x, 1, true)),
          gather(x, 1, Ids({37, 1, 6}, 10, 53, DType::kI32, d) + 0),
      };
    });
  }
}

// An index out of range on the GPU throws at realize with the CPU's message (the first bad
// position of the first gather in program order), and nothing realized earlier is lost. Ids
// known in range are not checked ([ Note -- value ranges ]): the same program with ids that
// are not still throws (case 3), and so do ids whose range is unknown (case 4).
TEST_F(GpuTest, OutOfRangeIndicesThrowLikeTheCpu) {
  auto message = [](Device d, int which) {
    const Tensor table = Data({5, 4}, 11, DType::kF32, d);
    const Tensor ids = from_vector(std::vector<int64_t>{0, 7, -1, 9}, {4}, DType::kI64, d);
    const Tensor good = table * 2.0;
    realize({good});
    try {
      switch (which) {
        case 0:
          realize({embedding(table, ids)});
          break;
        case 1:  // computed indices, two gathers: the first in program order reports
          realize({index_select(table, 1, ids - 3) + 1.0, embedding(table, ids + 1)});
          break;
        case 2:  // under a reduction
          realize({sum(gather(table, 1, reshape(ids, {1, 4}) * 2), {1})});
          break;
        case 3:  // planned for ids in range first
          realize({embedding(table,
                             from_vector(std::vector<int64_t>{0, 4, 1, 3}, {4}, DType::kI64, d)) *
                   3.0});
          realize({embedding(table, ids) * 3.0});
          break;
        default:  // through floats: a range not known
          realize({embedding(table, cast(cast(ids, DType::kF32), DType::kI64))});
          break;
      }
    } catch (const Error& e) {
      EXPECT_NEAR(good.to_vector<float>()[0], table.to_vector<float>()[0] * 2.0f, 1e-6);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (int which = 0; which < 5; ++which) {
    const std::string cpu = message(Device::kCPU, which);
    EXPECT_NE(cpu, "no error");
    EXPECT_EQ(message(Device::kCUDA, which), cpu) << which;
  }
}

// Cross-entropy's one-hot pick written with eq and ne against the classes' positions: each
// row's target is read once and compared in 32 bits, so targets past 2^32, negative ones and
// the edges must pick exactly what 64-bit compares pick. Rows of 40000 stream in one chunk,
// rows of 2^17 in several.
TEST_F(GpuTest, OneHotPicksOfWideTargets) {
  for (int64_t length : {int64_t{40000}, int64_t{131072}}) {
    Compare([length](Device d) {
      const std::vector<int64_t> ids = {0,     length - 1,          -1,     (int64_t{1} << 32) + 3,
                                        12345, -(int64_t{1} << 32), length, int64_t{1} << 32};
      const int64_t rows = static_cast<int64_t>(ids.size());
      const Tensor x = Data({rows, length}, 24, DType::kBF16, d, -8, 8);
      const Tensor targets = from_vector(ids, {rows, 1}, DType::kI64, d);
      const Tensor classes = arange(length, DType::kI64, d);
      const Tensor picked = sum(where(eq(classes, targets), x, 0.0), {1}, true);
      const Tensor others = sum(where(ne(targets, reshape(classes, {1, length})), 0.0, x), {1});
      return std::vector<Tensor>{logsumexp(x, {1}, true) - picked, others,
                                 mean(logsumexp(x, {1}, true) - picked)};
    });
  }
}

// sum(where(eq(arange, t), x, e)) over a streamed row reads x at t once and adds the other
// terms as a count times e (codegen/one_hot_sum.h): e = 0, -0 and not 0, eq either way round,
// the ne form of a mean, i32 targets in and out of the row, x -0 and NaN at the target, f32
// rows of 70000 in several chunks (the target in one of them); enough rows to stream (fewer
// are held on chip by clusters).
TEST_F(GpuTest, OneHotSumsReadAtTheTarget) {
  constexpr int64_t kLength = 70000, kRows = 300;
  std::vector<int32_t> ids = {0, kLength - 1, -1, kLength, 5, 5, 40000};
  for (int64_t i = static_cast<int64_t>(ids.size()); i < kRows; ++i) {
    ids.push_back(static_cast<int32_t>(i * 7919 % kLength));
  }
  auto build = [&](Device d) {
    std::vector<float> v = testing::RandomValues(kRows * kLength, 25, -4, 4);
    v[4 * kLength + 5] = -0.0f;
    v[5 * kLength + 5] = NAN;
    const Tensor x = from_vector(v, {kRows, kLength}, DType::kF32, d);
    const Tensor targets = from_vector(ids, {kRows, 1}, DType::kI32, d);
    const Tensor classes = arange(kLength, DType::kI64, d);
    return std::vector<Tensor>{sum(where(eq(classes, targets), x, 0.0), {1}),
                               sum(where(eq(targets, classes), x, 0.25), {1}),
                               sum(where(eq(classes, targets), x, -0.0), {1}, true),
                               mean(where(ne(classes, targets), -1.5, x), {1})};
  };
  Compare(build);
  const std::string plan = explain(build(Device::kCUDA));
  EXPECT_TRUE(absl::StrContains(plan, "one-hot sum read at its target")) << plan;
  // The where a result too, or every op alone: the sum reads the where from a buffer.
  Compare([&](Device d) {
    const Tensor x = Data({8, 5000}, 26, DType::kF32, d);
    const Tensor targets =
        from_vector(std::vector<int32_t>(ids.begin(), ids.begin() + 8), {8, 1}, DType::kI32, d);
    const Tensor picks = where(eq(arange(5000, DType::kI64, d), targets), x, 0.0);
    return std::vector<Tensor>{picks, sum(picks, {1})};
  });
  setenv("TESSEL_FUSION", "0", 1);
  Compare(build);
  unsetenv("TESSEL_FUSION");
}

}  // namespace
}  // namespace tessel
