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
  // f64 to 16 bits rounds once on both devices: 16-bit midpoints, and values 2^-40 either
  // side of them (which a rounding to f32 first would put on the midpoint).
  Compare(
      [](Device d) {
        std::vector<double> half, brain;
        for (int k = 1024; k < 1088; ++k) {
          for (int side = -1; side <= 1; ++side) {
            half.push_back(k * 0x1p-10 + 0x1p-11 + side * 0x1p-40);
            brain.push_back((k - 896) * 0x1p-7 + 0x1p-8 + side * 0x1p-40);
          }
        }
        const int64_t n = static_cast<int64_t>(half.size());
        Tensor h = from_vector(half, {n}, F64, d), b = from_vector(brain, {n}, F64, d);
        return std::vector<Tensor>{cast(cast(h * 1.0, DType::kF16), F64),
                                   cast(cast(b * 1.0, DType::kBF16), F64)};
      },
      0, 0);
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

}  // namespace
}  // namespace tessel
