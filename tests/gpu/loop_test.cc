// Long-running programs on the GPU: a loop whose values change every step reuses its kernels
// and matches the CPU backend at every step.
#include "core/stats.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/gpu/gpu_compare.h"

namespace tessel {
namespace {

using testing::Compare;
using testing::Data;
using testing::GpuTest;

struct CacheCounters {
  int64_t plans_built, modules_loaded, plan_cache_hits;
};
CacheCounters Counters() {
  return {GetStats().plans_built.load(), GetStats().modules_loaded.load(),
          GetStats().plan_cache_hits.load()};
}

// An SGD step with dropout (a new seed each step) and a layer norm whose eps changes.
std::vector<Tensor> Step(int step, Device d) {
  const Tensor p = Data({256, 1000}, 1, DType::kF32, d), g = Data({256, 1000}, 2, DType::kF32, d);
  const Tensor w = Data({1000}, 3, DType::kF32, d), b = Data({1000}, 4, DType::kF32, d);
  const double lr = 0.1 / (step + 1), eps = 1e-5 * (step + 1);
  const Tensor keep =
      lt(rand({256, 1000}, 100 + step, DType::kF32, d), full({}, 0.9, DType::kF32, d));
  const Tensor dropped = where(keep, g / 0.9, zeros({256, 1000}, DType::kF32, d));
  return {p - lr * dropped, layer_norm(p, w, b, eps) * (1.0 + step)};
}

TEST_F(GpuTest, ChangedValuesAndSeedsReuseEveryKernel) {
  Compare([](Device d) { return Step(0, d); }, 1e-4, 1e-4);
  const CacheCounters first = Counters();
  for (int step = 1; step < 6; ++step) {
    SCOPED_TRACE(::testing::Message() << "step " << step);
    Compare([step](Device d) { return Step(step, d); }, 1e-4, 1e-4);
  }
  const CacheCounters later = Counters();
  EXPECT_EQ(later.plans_built, first.plans_built);
  EXPECT_EQ(later.modules_loaded, first.modules_loaded);
  EXPECT_GE(later.plan_cache_hits, first.plan_cache_hits + 5);
}

// A loop over batch sizes: each is right, and the kernels are made once per power-of-two
// bucket of the batch (backend/dynamic_extents.h), not once per size.
TEST_F(GpuTest, BatchSizesShareKernelsPerBucket) {
  for (DType dtype : {DType::kBF16, DType::kF32}) {
    SCOPED_TRACE(DTypeName(dtype));
    auto block = [dtype](int64_t b, Device d) {
      const Tensor x = Data({b, 256}, 1 + b, dtype, d);
      const Tensor w1 = Data({256, 512}, 2, dtype, d, -0.1f, 0.1f);
      const Tensor b1 = Data({512}, 3, dtype, d), b2 = Data({256}, 4, dtype, d);
      const Tensor w2 = Data({512, 256}, 5, dtype, d, -0.1f, 0.1f);
      const Tensor y = matmul(gelu(matmul(x, w1) + b1), w2) + b2 + x;
      return std::vector<Tensor>{y, tanh(x * 0.5) + 1.0};
    };
    const int64_t before = GetStats().plans_built;
    for (int64_t b = 1; b <= 64; ++b) {
      SCOPED_TRACE(::testing::Message() << "batch " << b);
      // bf16: y cancels terms of magnitude ~4, whose ulp is 2^-5.
      Compare([&](Device d) { return block(b, d); }, dtype == DType::kF32 ? 1e-4 : 3.2e-2,
              dtype == DType::kF32 ? 1e-3 : 0.07);
    }
    // B = 1, then buckets [2, 3], [4, 7], ..., [64, 127]; B = 1 of the first program and the
    // second program's B = 2 are the family's first two, specialized then shared.
    EXPECT_LE(GetStats().plans_built - before, 9);
    // explain() shows what realize would run: the kernels that take the batch.
    const std::string text = explain(block(100, Device::kCUDA));
    EXPECT_NE(text.find("is the kernels' rows argument; these kernels serve batches 64 to 127"),
              std::string::npos)
        << text;
  }
}

// A training step's forward and backward passes over changing batch sizes: right at every
// size, and within a bucket each new size compiles only the kernels that hold the batch where
// they cannot take it as an argument: with f32 values the weight gradients' GEMMs (K = B,
// SIMT); with bf16 values those are Hopper GEMMs that take the batch as their K (ragged K
// steps: 42, 45, 50, 63 rows; with and without an epilogue), and nothing compiles. The bias
// gradients' column sums and the loss's mean of every value take it too.
TEST_F(GpuTest, ATrainingStepOverBatchSizesCompilesOnlyWhatHoldsTheBatch) {
  for (DType dtype : {DType::kBF16, DType::kF32}) {
    SCOPED_TRACE(DTypeName(dtype));
    auto step = [dtype](int64_t b, Device d) {
      const Tensor x = Data({b, 64}, 30 + b, dtype, d), t = Data({b, 32}, 40 + b, dtype, d);
      const Tensor w1 = Data({64, 96}, 31, dtype, d, -0.2f, 0.2f), b1 = Data({96}, 32, dtype, d);
      const Tensor w2 = Data({96, 32}, 33, dtype, d, -0.2f, 0.2f);
      const Tensor h = tanh(matmul(x, w1) + b1), y = matmul(h, w2);
      const Tensor dy = (y - t) * (2.0 / static_cast<double>(b));
      const Tensor dh = matmul(dy, transpose(w2)) * (1.0 - h * h);
      return std::vector<Tensor>{mean(dy * dy), w1 - 0.1 * matmul(transpose(x), dh),
                                 b1 - 0.1 * sum(dh, {0}), matmul(transpose(h), dy)};
    };
    const double tol = dtype == DType::kF32 ? 1e-4 : 3e-2;
    for (int64_t b : {17, 40, 41}) {
      SCOPED_TRACE(::testing::Message() << "batch " << b);
      Compare([&](Device d) { return step(b, d); }, tol, tol);
    }
    for (int64_t b : {42, 45, 50, 63}) {  // the bucket 32..63, its kernels that take rows loaded
      SCOPED_TRACE(::testing::Message() << "batch " << b);
      const CacheCounters before = Counters();
      Compare([&](Device d) { return step(b, d); }, tol, tol);
      EXPECT_LE(Counters().modules_loaded - before.modules_loaded, dtype == DType::kF32 ? 2 : 0);
    }
  }
}

// Column reductions over a batch that varies, in splits combined by a second launch (the
// bucket 1024..2047): a bias update from a bf16 column sum, a mean over the batch and the next
// axis, a max; right at each size, no module loaded for the bucket's second size.
TEST_F(GpuTest, ColumnReductionsOverTheBatchTakeItInSplits) {
  auto step = [](int64_t b, Device d) {
    const Tensor x = Data({b, 64}, 50 + b, DType::kBF16, d);
    const Tensor x3 = Data({b, 3, 64}, 60 + b, DType::kF32, d);
    const Tensor bias = Data({64}, 51, DType::kBF16, d);
    return std::vector<Tensor>{bias - 0.01 * sum(x, {0}), mean(x3, {0, 1}) * 2.0,
                               max(x3 * 3.0, {0})};
  };
  for (int64_t b : {600, 1100, 2000}) {
    SCOPED_TRACE(::testing::Message() << "batch " << b);
    const CacheCounters before = Counters();
    Compare([&](Device d) { return step(b, d); }, 2e-2, 2e-2);
    if (b == 2000) {
      EXPECT_EQ(Counters().modules_loaded, before.modules_loaded);
    }
  }
  EXPECT_NE(explain(step(1500, Device::kCUDA)).find("splits combined after"), std::string::npos);
}

// Transposed kernels over changing batch sizes: the batch neither tiled axis (tiles that fit,
// unchecked, two 16-bit positions a thread), or the result's contiguous axis (tiles checked).
TEST_F(GpuTest, TransposesTakeTheBatch) {
  for (DType dtype : {DType::kBF16, DType::kF32}) {
    for (int64_t b : {1, 2, 3, 5, 8, 13, 33, 64, 100}) {
      SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " batch " << b);
      Compare([&](Device d) {
        const Tensor x3 = Data({b, 32, 64}, 10 + b, dtype, d);
        const Tensor x2 = Data({b, 96}, 20 + b, dtype, d);
        return std::vector<Tensor>{permute(x3, {0, 2, 1}) * 2.0, transpose(x2) + 1.0};
      });
    }
  }
}

// The same loop over q/k/v projections of one x (sibling GEMMs, one Hopper kernel): every
// batch size right, the kernel taking the batch as its rows argument.
TEST_F(GpuTest, SiblingProjectionsTakeTheBatch) {
  auto qkv = [](int64_t b, Device d) {
    const Tensor x = Data({b, 128}, 20 + b, DType::kBF16, d);
    return std::vector<Tensor>{matmul(x, Data({128, 256}, 21, DType::kBF16, d)),
                               matmul(x, Data({128, 64}, 22, DType::kBF16, d)),
                               gelu(matmul(x, Data({128, 64}, 23, DType::kBF16, d)))};
  };
  const int64_t before = GetStats().plans_built;
  for (int64_t b = 1; b <= 40; ++b) {
    SCOPED_TRACE(::testing::Message() << "batch " << b);
    Compare([&](Device d) { return qkv(b, d); }, 3.2e-2, 1e-2);
  }
  EXPECT_LE(GetStats().plans_built - before, 8);
}

// GEMMs in K slices (few tiles, long K: device/gemm_sm90_fixup.cuh) over batch sizes (the
// kernels take the batch as their rows argument; 64-row and 128-row tiles) and replayed as a
// CUDA graph: the slices' counters read whatever the workspace held as none, and each launch
// leaves them as the next finds them.
TEST_F(GpuTest, KSlicedGemmsTakeTheBatchAndReplay) {
  auto qkv = [](int64_t b, Device d) {
    const Tensor x = Data({b, 1024}, 40 + b, DType::kBF16, d);
    return std::vector<Tensor>{matmul(x, Data({1024, 512}, 41, DType::kBF16, d)),
                               gelu(matmul(x, Data({1024, 128}, 42, DType::kBF16, d)))};
  };
  // Each bucket's ends: tiles chosen for its fewest rows, K cut at run time for the tiles
  // a batch has.
  for (int64_t b : {2, 3, 16, 17, 24, 31, 32, 33, 50, 63, 64, 65, 100, 127, 128, 200, 255}) {
    SCOPED_TRACE(::testing::Message() << "batch " << b);
    Compare([&](Device d) { return qkv(b, d); }, 3.2e-2, 1e-2);
  }
  const int64_t replays = GetStats().graph_replays;
  Compare(
      [](Device d) {
        Tensor x = Data({64, 2048}, 50, DType::kBF16, d);
        const Tensor w = Data({2048, 512}, 51, DType::kBF16, d, -0.05f, 0.05f);
        Tensor acc = zeros({64, 512}, DType::kF32, d);
        realize({x, acc});
        for (int step = 0; step < 8; ++step) {
          assign(x, sin(x * 3.0));
          assign(acc, acc * 0.5 + cast(matmul(x, w), DType::kF32));
          realize({x, acc});
        }
        return std::vector<Tensor>{acc};
      },
      3.2e-2, 0.05);
  EXPECT_GT(GetStats().graph_replays, replays);
}

// A loop whose plan of several launches repeats with the same buffers (its input updated in
// place, its results folded into accumulators in place) is captured as a CUDA graph and
// replayed: each step's new values (a new order each step) come out as the CPU computes them.
TEST_F(GpuTest, GraphReplaysFollowNewValues) {
  const int64_t captured = GetStats().graphs_captured, replays = GetStats().graph_replays;
  Compare([](Device d) {
    Tensor x = Data({4, 65536}, 7, DType::kF32, d);
    Tensor values_seen = zeros({4, 8}, DType::kF32, d);
    Tensor positions_seen = zeros({4, 8}, DType::kI64, d);
    realize({x, values_seen, positions_seen});
    for (int step = 0; step < 8; ++step) {
      assign(x, sin(x * 3.0));
      realize({x});
      const auto [values, positions] = topk(x, 8);  // six launches, then the updates
      assign(values_seen, values_seen * 0.5 + values);
      assign(positions_seen, positions_seen * 2 + positions);
      realize({values_seen, positions_seen});
    }
    return std::vector<Tensor>{values_seen, positions_seen};
  });
  // Graphs captured, and launched more often than captured (a capture's run is its first).
  const int64_t new_graphs = GetStats().graphs_captured - captured;
  EXPECT_GE(new_graphs, 1);
  EXPECT_GT(GetStats().graph_replays - replays, new_graphs);
}

// An update in place while an expression not yet realized reads the old value: the old value
// moves aside (copied on the stream, after the program that reads it), the parameter keeps
// its memory, and the reader sees the old value.
TEST_F(GpuTest, UpdatesInPlaceBesideReadersOfTheOldValue) {
  const void* where = nullptr;
  Compare([&](Device d) {
    Tensor p = Data({1000, 257}, 8, DType::kF32, d);
    realize({p});
    where = data_ptr(p);
    const Tensor reader = exp(p);
    assign(p, p * 0.5 + 1.0);
    realize({p});
    if (d == Device::kCUDA) {
      EXPECT_EQ(data_ptr(p), where);
    }
    const Tensor second = p * 2.0;
    assign(p, sin(p));
    realize({p, second});
    if (d == Device::kCUDA) {
      EXPECT_EQ(data_ptr(p), where);
    }
    return std::vector<Tensor>{p, reader, second};
  });
}

}  // namespace
}  // namespace tessel
