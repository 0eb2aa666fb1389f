// The CUDA backend against the CPU backend: every op and fusion pattern, the same inputs on
// both devices (from host data or the same generator seed), compared with per-dtype bounds:
//   f32: |gpu - cpu| <= 1e-5 |cpu| + 1e-5   (transcendentals differ by float ulps;
//        float vs double accumulation: reductions use 1e-4)
//   f16: 4e-3 relative (2 ulps), bf16: 1.6e-2 relative (2 ulps) plus the same absolute term.
// Needs a GPU: Bazel tag "gpu"; tools/gpu_bundle.sh packs it for the device machine.
#include <cmath>
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/stats.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/gpu/gpu_compare.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::Bound;
using testing::Compare;
using testing::Data;
using testing::GpuTest;

constexpr DType kFloats[] = {DType::kF32, DType::kBF16, DType::kF16};

TEST_F(GpuTest, UnaryOps) {
  using F = Tensor (*)(const Tensor&);
  const std::vector<std::pair<F, std::pair<float, float>>> ops = {
      {neg, {-3, 3}},     {abs, {-3, 3}},  {exp, {-5, 5}},  {log, {0.1f, 9}},    {sqrt, {0, 9}},
      {rsqrt, {0.1f, 9}}, {sin, {-3, 3}},  {cos, {-3, 3}},  {tanh, {-4, 4}},     {erf, {-3, 3}},
      {sigmoid, {-8, 8}}, {relu, {-3, 3}}, {gelu, {-4, 4}}, {gelu_erf, {-4, 4}}, {silu, {-4, 4}}};
  for (DType dt : kFloats) {
    for (const auto& [op, range] : ops) {
      Compare([&, op = op, range = range](Device d) {
        return std::vector<Tensor>{op(Data({3, 1000}, 1, dt, d, range.first, range.second))};
      });
    }
  }
}

TEST_F(GpuTest, BinaryOpsWithBroadcasting) {
  using F = Tensor (*)(const Tensor&, const Tensor&);
  const std::vector<F> ops = {add, sub, mul, div, maximum, minimum};
  const std::vector<std::pair<Shape, Shape>> shapes = {{{64, 33}, {64, 33}},
                                                       {{64, 33}, {33}},
                                                       {{64, 1}, {1, 33}},
                                                       {{}, {5, 7}},
                                                       {{2, 3, 1}, {3, 9}}};
  for (DType dt : kFloats) {
    for (F op : ops) {
      for (const auto& [sa, sb] : shapes) {
        Compare([&](Device d) {
          return std::vector<Tensor>{op(Data(sa, 1, dt, d, 0.5f, 3), Data(sb, 2, dt, d, 0.5f, 3))};
        });
      }
    }
    Compare([&](Device d) {
      Tensor x = Data({100}, 3, dt, d, 0.5f, 3);
      return std::vector<Tensor>{pow(x, Data({100}, 4, dt, d, -2, 2)), 2.0 - x * 0.5 + 1.0 / x};
    });
  }
}

TEST_F(GpuTest, IntegersComparisonsWhereAndCasts) {
  Compare(
      [](Device d) {
        std::vector<int32_t> a(200), b(200);
        for (int i = 0; i < 200; ++i) {
          a[i] = i * 7919 - 700000;
          b[i] = (i % 13) - 6;
        }
        Tensor x = from_vector(a, {200}, DType::kI32, d), y = from_vector(b, {200}, DType::kI32, d);
        Tensor f = Data({200}, 5, DType::kF32, d, -3, 3);
        return std::vector<Tensor>{x + y,
                                   x * y,
                                   pow(y, abs(y)),
                                   maximum(x, y),
                                   -x,
                                   relu(y),
                                   x / y,
                                   lt(f, cast(y, DType::kF32)),
                                   where(gt(f, 0.0 * f), f, cast(y, DType::kBF16)),
                                   cast(f * 1e5, DType::kI32),
                                   cast(f, DType::kBool),
                                   cast(f, DType::kF16),
                                   sum(ge(f, 0.0 * f))};
      },
      0, 0);
}

TEST_F(GpuTest, ReductionsOverEveryAxisSubset) {
  for (DType dt : kFloats) {
    for (unsigned mask = 1; mask < 8; ++mask) {
      std::vector<int> axes;
      for (int a = 0; a < 3; ++a) {
        if (mask >> a & 1) axes.push_back(a - 3);
      }
      Compare(
          [&](Device d) {
            Tensor x = Data({7, 33, 65}, mask, dt, d);
            return std::vector<Tensor>{sum(x, axes), mean(x, axes, true), max(x, axes),
                                       min(x, axes, true)};
          },
          dt == DType::kF32 ? 1e-4 : Bound(dt), 1e-3);
    }
  }
}

TEST_F(GpuTest, LongReductionsStreamDeterministically) {
  Compare(
      [](Device d) {
        Tensor x = Data({1 << 22}, 9, DType::kF32, d);
        return std::vector<Tensor>{sum(x), sum(x * x), max(x),
                                   mean(Data({3, 100000}, 2, DType::kBF16, d), {1})};
      },
      1e-4, 1e-2);
  // The same graph on the same input, recorded and computed twice: the same bits.
  Tensor x = Data({1 << 22}, 9, DType::kF32, Device::kCUDA);
  const float a = sum(x * 3.0).to_vector<float>()[0];
  const float b = sum(x * 3.0).to_vector<float>()[0];  // the first result is gone: recomputed
  EXPECT_EQ(a, b);
}

// Column reductions (leading and middle axes, the innermost kept): long columns split over
// blocks, every accumulator type, siblings with an epilogue, a prologue, a row count off a
// multiple of 32; the same bits twice.
TEST_F(GpuTest, ColumnReductions) {
  Compare(
      [](Device d) {
        const Tensor tall = Data({20000, 300}, 3, DType::kF32, d);
        const Tensor ints = cast(Data({3000, 77}, 5, DType::kF32, d, -50, 50), DType::kI32);
        return std::vector<Tensor>{
            sum(tall, {0}),
            sqrt(sum(tall * tall, {0})) / (mean(tall, {0}) + 3.0),
            min(ints, {0}),
            max(cast(Data({3000, 78}, 12, DType::kF32, d, -50, 50), DType::kI32), {0}),
            sum(cast(ints, DType::kI64), {0}),
            prod(Data({40, 64}, 6, DType::kF64, d, 0.5, 1.5), {0}),
            sum(exp(Data({9000, 33}, 7, DType::kF32, d)) * 0.5, {0}, true)};
      },
      1e-4, 1e-3);
  Compare(
      [](Device d) {
        // 16-bit inputs a pair of columns a lane: long columns in splits with a ragged tail,
        // a column count off a multiple of 64, a bias along the kept axis, a 1-byte input,
        // and an odd column count (a column a lane).
        const Tensor cube = Data({5, 700, 96}, 4, DType::kBF16, d);
        const Tensor tall = Data({20001, 302}, 8, DType::kBF16, d);
        const Tensor bias = Data({1, 302}, 9, DType::kBF16, d);
        const Tensor odd = Data({3001, 77}, 10, DType::kBF16, d);
        const Tensor flags = gt(Data({2000, 130}, 11, DType::kF32, d), 0.3);
        realize({flags});  // read as 1-byte elements
        return std::vector<Tensor>{mean(cube, {1}),
                                   max(cube, {0, 1}),
                                   sum(tall * tall, {0}),
                                   min(tall - bias, {0}),
                                   sum(cast(gt(tall, bias), DType::kI32), {0}),
                                   sum(odd, {0}),
                                   sum(flags, {0})};
      },
      Bound(DType::kBF16), 1e-3);
  const Tensor x = Data({20000, 300}, 3, DType::kF32, Device::kCUDA);
  const std::vector<float> a = sum(x * 3.0, {0}).to_vector<float>();
  const std::vector<float> b = sum(x * 3.0, {0}).to_vector<float>();
  EXPECT_EQ(a, b);
}

// Normalizations over leading and middle axes (columns held on chip) against the CPU: softmax
// and log_softmax over each non-trailing axis, a user-written layer norm over a middle axis
// with its statistics also returned, columns off a multiple of 32, reduced extents off a
// multiple of the threads that share them, f64 and bf16.
// x standardized over its leading axis, as a user writes it: two chained reductions.
Tensor ColumnStandardized(const Tensor& x) {
  const Tensor centered = x - mean(x, {0}, true);
  return centered / sqrt(mean(centered * centered, {0}, true) + 1e-5);
}

TEST_F(GpuTest, ColumnNormalizations) {
  Compare(
      [](Device d) {
        const Tensor square = Data({2100, 2100}, 16, DType::kF32, d);
        const Tensor x = Data({40, 70, 100}, 3, DType::kF32, d);
        const Tensor t = Data({333, 65}, 4, DType::kF32, d);
        const Tensor centered = x - mean(x, {1}, true);
        const Tensor var = mean(centered * centered, {1}, true);
        return std::vector<Tensor>{
            softmax(x, 0), softmax(x, 1), log_softmax(t, 0), centered / sqrt(var + 1e-5), var,
            softmax(Data({5, 3, 40}, 5, DType::kF64, d), 1), x / sum(abs(x), {0, 1}, true),
            // longer than a warp's columns hold: 8 columns a block (sm_90), or column
            // kernels, then the epilogue
            softmax(Data({1500, 40}, 7, DType::kF32, d), 0),
            log_softmax(Data({3, 700, 33}, 8, DType::kF32, d), 1),
            // split over a cluster's blocks (sm_90), most lanes staged in shared memory:
            // ragged parts, a column input, chained reductions, and the staged input also
            // read transposed (from memory, not from the stage)
            softmax(Data({5000, 40}, 10, DType::kF32, d), 0),
            softmax(Data({3001, 24}, 13, DType::kF32, d) * Data({1, 24}, 14, DType::kF32, d), 0),
            ColumnStandardized(Data({6000, 20}, 15, DType::kF32, d)),
            softmax(square + transpose(square), 0),
            // even parts: 128 bytes of each row a block, clusters of 16 and 4
            softmax(Data({16384, 40}, 17, DType::kF32, d), 0),
            ColumnStandardized(Data({4096, 33}, 18, DType::kF32, d)),
            // longer than a cluster holds: column kernels
            softmax(Data({20000, 33}, 11, DType::kF32, d), 0),
            // many short columns: a ragged part and a ragged last block
            softmax(Data({250, 17000}, 19, DType::kF32, d), 0),
            ColumnStandardized(Data({256, 16900}, 20, DType::kF32, d)),
            // a warp's 32 parts a column, read back by lanes: chained reductions, a ragged
            // part, a ragged last block
            ColumnStandardized(Data({500, 70}, 25, DType::kF32, d)),
            softmax(Data({2, 512, 100}, 26, DType::kF32, d), 1)};
      },
      1e-5, 1e-5);
  Compare(
      [](Device d) {
        // bf16 columns staged a pair a copy (even innermost extents, even parts: clusters of 16
        // and 4, a middle axis, chained reductions), or held in registers (ragged parts, odd);
        // many short ones as a tile in shared memory (a ragged part and a ragged last block, a
        // column input, chained reductions, a middle axis of 512, f16, a 48 KB tile beside the
        // block's static shared memory)
        const Tensor many = Data({250, 17000}, 28, DType::kBF16, d);
        return std::vector<Tensor>{softmax(many, 0),
                                   softmax(many * Data({1, 17000}, 29, DType::kBF16, d), 0),
                                   ColumnStandardized(Data({256, 16904}, 30, DType::kBF16, d)),
                                   softmax(Data({33, 512, 520}, 31, DType::kBF16, d), 1),
                                   log_softmax(Data({241, 17008}, 32, DType::kF16, d), 0),
                                   softmax(Data({300, 16896}, 33, DType::kBF16, d), 0),
                                   softmax(Data({129, 96}, 6, DType::kBF16, d), 0),
                                   softmax(Data({3000, 64}, 12, DType::kBF16, d), 0),
                                   softmax(Data({16384, 40}, 21, DType::kBF16, d), 0),
                                   softmax(Data({3, 4096, 18}, 22, DType::kBF16, d), 1),
                                   ColumnStandardized(Data({4096, 34}, 24, DType::kBF16, d)),
                                   softmax(Data({3000, 33}, 23, DType::kBF16, d), 0),
                                   softmax(Data({3, 512, 40}, 27, DType::kBF16, d), 1)};
      },
      Bound(DType::kBF16), 1e-3);
}

// Rows longer than one block holds, shared by the blocks of a cluster (sm_90), against the
// CPU: 8 and 2 blocks a row, odd lengths (ragged parts), chained reductions, f64 (more
// blocks a row), a reduction-only group and siblings; and the same bits twice.
TEST_F(GpuTest, ClusterRows) {
  Compare(
      [](Device d) {
        const Tensor x = Data({3, 131072}, 3, DType::kF32, d);
        const Tensor odd = Data({5, 20001}, 4, DType::kF32, d);
        return std::vector<Tensor>{softmax(x, 1),
                                   layer_norm(odd, Tensor(), Tensor()),
                                   log_softmax(Data({2, 40000}, 5, DType::kF64, d), 1),
                                   logsumexp(odd, {1}),
                                   sum(odd, {1}),
                                   max(odd * 2.0, {1}, true),
                                   rms_norm(Data({4, 65537}, 6, DType::kF32, d), Tensor()),
                                   softmax(Data({2, 10000}, 9, DType::kF64, d), 1),
                                   argmax(odd, 1)};
      },
      1e-5, 1e-4);
  Compare(
      [](Device d) {
        return std::vector<Tensor>{softmax(Data({64, 131072}, 7, DType::kBF16, d), 1)};
      },
      Bound(DType::kBF16), 1e-3);
  const Tensor x = Data({16, 100000}, 8, DType::kF32, Device::kCUDA);
  EXPECT_EQ(softmax(x * 3.0, 1).to_vector<float>(), softmax(x * 3.0, 1).to_vector<float>());
}

// Transposing pointwise kernels (tiled through shared memory) against the CPU: 2-D and 4-D
// permutes, edges off the tile, size-1 axes, several outputs, a reshape after the transpose,
// every storage width.
TEST_F(GpuTest, Transposes) {
  Compare(
      [](Device d) {
        const Tensor x = Data({1000, 333}, 3, DType::kF32, d);
        const Tensor four = Data({3, 50, 7, 65}, 4, DType::kF32, d);
        const Tensor ints = cast(Data({40, 1, 90}, 5, DType::kF32, d, -50, 50), DType::kI32);
        return std::vector<Tensor>{transpose(x) + 1.0,
                                   exp(transpose(x) * 0.1),
                                   transpose(x) - Data({1, 1000}, 6, DType::kF32, d),
                                   permute(four, {0, 3, 1, 2}) * 2.0,
                                   permute(four, {3, 2, 1, 0}) + 1.0,
                                   permute(four, {0, 1, 3, 2}),
                                   reshape(transpose(x), {333, 10, 100}) * 3.0,
                                   permute(ints, {2, 1, 0}) + 1,
                                   permute(cast(ints, DType::kF64), {2, 0, 1}) * 0.5};
      },
      1e-5, 1e-5);
  Compare(
      [](Device d) {
        const Tensor h = Data({2, 100, 3, 64}, 7, DType::kBF16, d);
        const Tensor g = Data({130, 70}, 8, DType::kBF16, d);
        // 2-byte outputs: tiles of 64 x 64 (edges off the tile on both axes), 64 x 32 and
        // 32 x 64 (one axis under 64), 32 x 32; 1-byte outputs; pairs of positions a thread
        // (even extents along the input's rows) with and without edges, an odd extent, a
        // broadcast operand varying along the pairs, tiles that fit the space exactly
        const Tensor narrow = Data({1000, 40}, 9, DType::kBF16, d);
        const Tensor fits = Data({2, 64, 4, 64}, 11, DType::kBF16, d);
        return std::vector<Tensor>{
            permute(h, {0, 2, 3, 1}) * 2.0,
            cast(permute(h, {0, 2, 3, 1}), DType::kF32),
            transpose(g) + 1.0,
            permute(reshape(g, {13, 10, 70}), {2, 0, 1}) * 3.0,
            transpose(narrow) * 2.0,
            permute(reshape(narrow, {25, 40, 40}), {0, 2, 1}) + 1.0,
            permute(Data({3, 40, 130}, 10, DType::kBF16, d), {0, 2, 1}),
            permute(gt(h, 0.0), {0, 2, 3, 1}),
            transpose(Data({50, 33}, 12, DType::kBF16, d)) * 2.0,
            permute(fits, {0, 2, 3, 1}) * 2.0,
            permute(fits, {0, 2, 3, 1}) + Data({1, 4, 64, 1}, 13, DType::kBF16, d)};
      },
      Bound(DType::kBF16), 1e-3);
}

TEST_F(GpuTest, NanPropagates) {
  Compare([](Device d) {
    Tensor x = from_vector({1, NAN, 3, 4, -INFINITY, 2}, {2, 3}, DType::kF32, d);
    return std::vector<Tensor>{max(x, {1}), min(x, {0}), maximum(x, x * 0.5), relu(x)};
  });
}

TEST_F(GpuTest, ViewsFoldIntoIndexMath) {
  for (DType dt : {DType::kF32, DType::kBF16}) {
    Compare([&](Device d) {
      Tensor x = Data({6, 8, 10}, 1, dt, d);
      Tensor y = Data({10, 8}, 2, dt, d);
      return std::vector<Tensor>{permute(x, {2, 0, 1}) * 2.0,
                                 slice(x, 2, 3, 9) + slice(x, 2, 0, 6),
                                 reshape(transpose(x), {6, 80}) - 1.0,
                                 x * reshape(transpose(y), {1, 8, 10}),
                                 broadcast_to(slice(y, 0, 2, 3), {4, 1, 8}) + 0.0,
                                 concat({x, x * 3.0, slice(x, 0, 0, 2)}, 0),
                                 sum(transpose(x), {1})};
    });
  }
}

TEST_F(GpuTest, Normalizations) {
  for (DType dt : {DType::kF32, DType::kBF16, DType::kF16}) {
    for (int64_t cols : {7, 256, 1000, 8192, 40000}) {  // 40000 streams
      Compare(
          [&](Device d) {
            Tensor x = Data({5, cols}, 3, dt, d, -4, 6);
            Tensor w = Data({cols}, 4, dt, d), b = Data({cols}, 5, dt, d);
            return std::vector<Tensor>{softmax(x), log_softmax(x), layer_norm(x, w, b),
                                       rms_norm(x, w)};
          },
          dt == DType::kF32 ? 2e-5 : Bound(dt), 1e-4);
    }
  }
  Compare([](Device d) {
    return std::vector<Tensor>{softmax(Data({4, 6, 5}, 7, DType::kF32, d), 1)};
  });
}

TEST_F(GpuTest, MatmulsWithEpilogues) {
  const std::vector<std::pair<Shape, Shape>> shapes = {{{1, 1}, {1, 1}},
                                                       {{17, 33}, {33, 65}},
                                                       {{128, 64}, {64, 256}},
                                                       {{3, 70, 19}, {19, 5}},
                                                       {{2, 1, 9, 40}, {3, 40, 11}}};
  for (DType dt : {DType::kF32, DType::kBF16, DType::kF16}) {
    for (const auto& [sa, sb] : shapes) {
      Compare(
          [&](Device d) {
            Tensor a = Data(sa, 1, dt, d), b = Data(sb, 2, dt, d);
            Tensor c = matmul(a, b);
            Tensor bias = Data({c.shape()[c.rank() - 1]}, 3, dt, d);
            return std::vector<Tensor>{c, gelu(c + bias) + c * 0.5};
          },
          dt == DType::kF32 ? 1e-4 : 2 * Bound(dt), 1e-2);
    }
  }
  Compare(
      [](Device d) {
        Tensor a = Data({40, 30}, 1, DType::kF32, d), b = Data({50, 40}, 2, DType::kF32, d);
        return std::vector<Tensor>{
            softmax(matmul(transpose(a), transpose(b)) + Data({30, 50}, 3, DType::kF32, d))};
      },
      1e-4, 1e-5);
}

TEST_F(GpuTest, ApiExample) {
  Compare(
      [](Device d) {
        Tensor x = randn({512, 256}, 1, DType::kBF16, d);
        Tensor w = randn({256, 1024}, 2, DType::kBF16, d);
        Tensor b = randn({1024}, 3, DType::kBF16, d);
        return std::vector<Tensor>{softmax(gelu(matmul(x, w) + b))};
      },
      0.05, 1e-4);  // a bf16 logit may round one ulp apart; exp magnifies it
}

TEST_F(GpuTest, GeneratorsMatchTheCpu) {
  Compare(
      [](Device d) {
        return std::vector<Tensor>{randn({3, 1000}, 11, DType::kF32, d),
                                   rand({1000}, 11, DType::kBF16, d), arange(100, DType::kF32, d),
                                   full({5}, -2.5, DType::kF16, d),
                                   randn({64}, 5, DType::kF32, d) * rand({64}, 5, DType::kF32, d)};
      },
      2e-6, 2e-6);
}

TEST_F(GpuTest, HorizontalFusionOfManyUpdates) {
  Compare([](Device d) {
    std::vector<Tensor> outs;
    for (int i = 0; i < 64; ++i) {
      const int64_t n = int64_t{4096} << (i % 6);
      Tensor p = Data({n}, i, DType::kF32, d), g = Data({n}, 100 + i, DType::kF32, d);
      outs.push_back(p - 0.01 * g);
    }
    return outs;
  });
}

TEST_F(GpuTest, SharedValuesAndMultipleOutputs) {
  Compare(
      [](Device d) {
        Tensor x = Data({64, 128}, 1, DType::kF32, d);
        Tensor e = tanh(exp(sin(x)));
        return std::vector<Tensor>{sum(e, {0}), sum(e, {1}), e, x * 2.0, softmax(x) + e};
      },
      1e-4, 1e-4);
}

TEST_F(GpuTest, UnfusedModeAgrees) {
  setenv("TESSEL_FUSION", "0", 1);
  Compare([](Device d) {
    Tensor x = Data({33, 70}, 1, DType::kBF16, d);
    return std::vector<Tensor>{softmax(x), layer_norm(x, Tensor(), Tensor())};
  });
  unsetenv("TESSEL_FUSION");
}

TEST_F(GpuTest, ResultsSurviveLaterWork) {
  Tensor x = Data({1000}, 1, DType::kF32, Device::kCUDA);
  Tensor y = exp(x);
  realize({y});
  for (int i = 0; i < 20; ++i) realize({sum(x * static_cast<double>(i))});
  EXPECT_EQ(y.to_vector<float>(), exp(x).to_vector<float>());
  EXPECT_EQ(y.to_vector<float>().size(), 1000u);
}

// The additions to elementwise math: rounding, sign, log1p/expm1, predicates, logical
// operations, remainders, atan2, clamp and scalar comparisons, on floats and integers.
TEST_F(GpuTest, ElementwiseAdditions) {
  for (DType d : kFloats) {
    Compare([d](Device dev) {
      Tensor x = Data({33, 65}, 1, d, dev, -5, 5), y = Data({33, 65}, 2, d, dev, -3, 3);
      Tensor i = cast(Data({33, 65}, 3, DType::kF32, dev, -9, 9), DType::kI32);
      Tensor j = cast(Data({65}, 4, DType::kF32, dev, -4, 4), DType::kI32);
      return std::vector<Tensor>{floor(x) + ceil(y) * trunc(x),
                                 round(x * 2.0),
                                 sign(x) * y,
                                 log1p(abs(x)) + expm1(y * 0.1),
                                 logical_xor(isfinite(x / y), gt(x, 0.5)),
                                 logical_and(i, logical_not(lt(1.0, y))),
                                 remainder(x, y) + fmod(x, 1.5),
                                 remainder(i, j),
                                 fmod(i, j),
                                 atan2(x, y),
                                 clamp(x, -1, 2.5),
                                 where(eq(i, 0.0), 3.0, x),
                                 masked_fill(x, gt(y, 1.0), -7)};
    });
  }
}

// var, std, logsumexp, any and all over every axis subset of a rank-3 tensor.
TEST_F(GpuTest, ReductionAdditions) {
  for (DType d : kFloats) {
    Compare(
        [d](Device dev) {
          Tensor x = Data({9, 130, 33}, 1, d, dev, -3, 3) + 100.0;
          std::vector<Tensor> out;
          for (std::vector<int> axes : std::vector<std::vector<int>>{{0}, {1}, {2}, {0, 2}, {}}) {
            out.push_back(var(x, axes));
            out.push_back(std(x, axes, true, 0));
            out.push_back(logsumexp(x - 100.0, axes));
            out.push_back(any(gt(x, 102.9), axes));
            out.push_back(all(lt(x, 102.9), axes, true));
            out.push_back(prod(x * 0.01, axes));  // factors near 1: no overflow
          }
          return out;
        },
        d == DType::kF32 ? 1e-4 : -1);  // f32: sums in another order
  }
}

// The structural composites (views, concats and index comparisons) in one program.
TEST_F(GpuTest, StructureComposites) {
  for (DType d : kFloats) {
    Compare([d](Device dev) {
      Tensor x = Data({5, 7, 9}, 1, d, dev), y = Data({5, 7, 9}, 2, d, dev);
      std::vector<Tensor> out = {
          tril(x, -1) + triu(y, 2),
          pad(x, {0, 1, -2}, {1, 0, 3}, 0.5),
          repeat(squeeze(slice(x, 0, 2, 3), 0), {2, 1, 3}),
          stack({x, y}, 2) * 2.0,
          flip(x, {0, 2}) - sum(slice(y, 2, 1, 9, 3), {2}, true),
          slice(flip(y, {1}), 1, 1, 7, 2) * 0.5 + sum(slice(x, 0, 0, 5, 2), {0, 1})};
      for (const Tensor& piece : chunk(unsqueeze(y, 1), 3, 3)) out.push_back(exp(piece));
      return out;
    });
  }
}

// to() moves values bit for bit both ways; data_ptr gives the device address.
TEST_F(GpuTest, ToAndDataPtr) {
  for (DType d : {DType::kF32, DType::kBF16, DType::kF16, DType::kI32, DType::kBool}) {
    Tensor host = cast(Data({7, 33}, 9, DType::kF32, Device::kCPU, -4, 4), d);
    Tensor there = to(host, Device::kCUDA);
    EXPECT_EQ(there.device(), Device::kCUDA);
    EXPECT_NE(data_ptr(there), nullptr);
    Tensor back = to(there * 1, Device::kCPU);
    EXPECT_EQ(back.to_vector<float>(), host.to_vector<float>());
  }
  float one = 1;
  EXPECT_THROW(from_blob(&one, {1}, DType::kF32, Device::kCUDA), Error);
}

// A CUDA tensor prints its values and device, and saves and loads through .npy on the GPU.
TEST_F(GpuTest, PrintsAndFilesOfCudaTensors) {
  Tensor x = from_vector({0.5f, -1.25f, 2, 3}, {2, 2}, DType::kF32, Device::kCUDA) * 2.0;
  EXPECT_EQ(to_string(x),
            absl::StrCat("tensor([[ 1.0000, -2.5000],\n",
                         "        [ 4.0000,  6.0000]], device=cuda:", device_index(x), ")"));
  for (DType d : kFloats) {
    Tensor t = Data({33, 17}, 5, d, Device::kCUDA);
    const std::string path = ::testing::TempDir() + "/gpu.npy";
    save(path, t);
    Tensor back = load(path, Device::kCUDA);
    EXPECT_EQ(back.device(), Device::kCUDA);
    EXPECT_EQ(back.to_vector<float>(), t.to_vector<float>());
  }
}

// f64 and i64 on the GPU: double math, every reduction kind (block and two-stage, next to
// f32 in one kernel), an f64 matmul with an epilogue, casts; i64 exactly, past 2^53, wrapping.
TEST_F(GpuTest, WideDTypes) {
  constexpr DType F64 = DType::kF64, I64 = DType::kI64;
  Compare(
      [](Device d) {
        Tensor x = Data({37, 129}, 1, F64, d, 0.1f, 3), y = Data({129}, 2, F64, d, -2, 2);
        return std::vector<Tensor>{exp(x) * y + sqrt(x) / 3.0,
                                   tanh(x - y) + sigmoid(y) + rsqrt(x),
                                   sum(x, {1}),
                                   mean(x * x, {0}),
                                   max(x - y, {1}),
                                   prod(x * 0.9, {0}),
                                   softmax(x, -1),
                                   matmul(x, transpose(x)) + 1.0,
                                   cast(x, DType::kF32) * 2.0 + cast(y, DType::kF32),
                                   floor(x * 3.7) - remainder(x, y + 3.0)};
      },
      1e-12, 1e-12);
  // Long rows: f64 accumulators alone, then beside an f32 one in the same kernel (whose sum
  // of 2^20 terms differs from the CPU's double accumulation by float rounding).
  auto long_rows = [](Device d, bool with_f32) {
    Tensor x = Data({2, 1 << 20}, 3, F64, d), f = Data({2, 1 << 20}, 4, DType::kF32, d);
    std::vector<Tensor> out = {sum(x, {1}), max(x, {1})};
    if (with_f32) out.push_back(sum(f, {1}) + 0.0f);
    return out;
  };
  Compare([&](Device d) { return long_rows(d, false); }, 1e-9, 1e-6);
  Compare([&](Device d) { return long_rows(d, true); }, 1e-5, 1e-6);
  Compare([](Device d) {
    std::vector<int64_t> a(300), b(300);
    for (int i = 0; i < 300; ++i) {
      a[i] = (int64_t{1} << 60) + int64_t{1000003} * i - 150000000;
      b[i] = 7 * i - 1000 + (i == 0);
    }
    Tensor ta = from_vector(a, {300}, I64, d), tb = from_vector(b, {300}, I64, d);
    return std::vector<Tensor>{ta + tb,
                               ta * tb,
                               ta - tb * 3.0,
                               maximum(ta, tb) + minimum(ta, tb),
                               remainder(ta, tb) + fmod(ta, tb),
                               sum(reshape(ta, {3, 100}), {1}),
                               max(ta) + min(tb),
                               prod(remainder(reshape(tb, {30, 10}), 5.0), {1}),
                               cast(ta, DType::kI32),
                               cast(tb, F64) * 0.5,
                               gt(ta, tb),
                               where(gt(tb, 0.0), ta, tb),
                               abs(tb) - neg(tb),
                               pow(tb, full({}, 3, I64, d)),
                               cast(cast(tb, DType::kF32) * 1.5, I64)};
  });
}

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

// assign() on the GPU: 64 parameters updated together stay in their own buffers (their
// addresses and the memory in use unchanged after the step), with the CPU's values.
TEST_F(GpuTest, AssignUpdatesParametersInPlace) {
  Compare([](Device d) {
    std::vector<Tensor> params, grads;
    for (int i = 0; i < 64; ++i) {
      params.push_back(Data({1000 + i}, 40 + i, DType::kF32, d));
      grads.push_back(Data({1000 + i}, 140 + i, DType::kF32, d));
    }
    realize(params);
    std::vector<const void*> where;
    for (const Tensor& p : params) where.push_back(data_ptr(p));
    const int64_t in_use = memory_stats().in_use;
    for (int step = 0; step < 3; ++step) {
      for (int i = 0; i < 64; ++i) assign(params[i], params[i] - grads[i] * 0.01);
      realize(params);
    }
    for (int i = 0; i < 64; ++i) EXPECT_EQ(data_ptr(params[i]), where[i]) << i;
    if (d == Device::kCUDA) {
      EXPECT_EQ(memory_stats().in_use, in_use);
    }
    return params;
  });
}

// Integer indices in [0, n), the same on every device.
Tensor Ids(const Shape& shape, uint64_t seed, int64_t n, DType dtype, Device d) {
  return cast(floor(Data(shape, seed, DType::kF32, d, 0, static_cast<float>(n) - 0.01f)), dtype);
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

// Rows too long to stage: the max and the sum of exp(x - max) in one pass (online), for
// logsumexp, softmax and cross-entropy, in f32, bf16 and f64, with rows holding -inf, +inf,
// NaN, all -inf, and values far apart (the running sum rescales many times).
TEST_F(GpuTest, OnlineSumsOverLongRows) {
  for (DType dt : {DType::kF32, DType::kBF16, DType::kF64}) {
    Compare(
        [dt](Device d) {
          constexpr int64_t kRows = 6, kLength = 40000;
          std::vector<float> v = testing::RandomValues(kRows * kLength, 21, -30, 30);
          for (int64_t i = 0; i < kLength; ++i) v[i] = static_cast<float>(i) * 1e-3f;  // rising
          v[kLength + 7] = -INFINITY;
          v[2 * kLength + 9] = INFINITY;
          v[3 * kLength + 11] = NAN;
          for (int64_t i = 0; i < kLength; ++i) v[4 * kLength + i] = -INFINITY;
          const Tensor x = from_vector(v, {kRows, kLength}, dt, d);
          const Tensor targets = Ids({kRows, 1}, 22, kLength, DType::kI64, d);
          const Tensor picked = gather(x, 1, targets);
          return std::vector<Tensor>{logsumexp(x, {1}), logsumexp(x, {1}, true) - picked,
                                     softmax(x, -1), log_softmax(x, 1),
                                     mean(logsumexp(x, {1}, true) - picked)};
        },
        dt == DType::kF64 ? 1e-12 : -1, 1e-5);
  }
  Compare([](Device d) {  // 2^17 classes, a few rows: several chunks per row
    const Tensor x = Data({3, 131072}, 23, DType::kBF16, d, -8, 8);
    return std::vector<Tensor>{logsumexp(x, {1}), softmax(x, 1)};
  });
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
