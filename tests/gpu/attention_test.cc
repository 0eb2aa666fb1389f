// Attention chains on the GPU against the CPU backend, which runs them unfused (scores,
// softmax, second product): one attention kernel where the GPU has mma.sync (sm_80 on).
// Bounds: bf16 outputs 3.2e-2 and f16 8e-3 relative plus 1e-2 absolute (the kernel rounds the
// unnormalized probabilities to 16 bits and divides at the end; the CPU rounds the normalized
// ones), as for GEMMs.
// Needs a GPU: Bazel tag "gpu"; tools/gpu_bundle.sh packs it for the device machine.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "core/stats.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

class AttentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GetBackend(Device::kCUDA).ok()) GTEST_SKIP() << "no usable GPU";
  }
};

Tensor Data(const Shape& shape, uint64_t seed, DType dtype, Device d, double scale = 1) {
  return from_vector(testing::RandomValues(shape.numel(), seed, -scale, scale), shape, dtype, d);
}

// The relative bound for an output of `dtype` (the header's).
double RelativeBound(DType dtype) { return dtype == DType::kBF16 ? 3.2e-2 : 8e-3; }

// Builds `build` on both devices, checks that the GPU ran it as one attention kernel (on
// wgmma on sm_90a, unless `wgmma` is false), and compares the output.
void Compare(const std::function<Tensor(Device)>& build, bool wgmma = true) {
  Tensor gpu = build(Device::kCUDA), cpu = build(Device::kCPU);
  if (runtime::DeviceTarget().major >= 8) {
    const std::vector<KernelInfo> kernels = inspect({gpu});
    ASSERT_EQ(kernels.size(), 1u) << explain({gpu});
    // wgmma on sm_90a (TESSEL_ARCH=sm_90 runs the mma.sync kernel on Hopper).
    const Target t = runtime::DeviceTarget();
    const char* mainloop = t.major == 9 && t.arch_specific && wgmma ? "tessel_attention_sm90<"
                                                                    : "tessel_attention_sm80<";
    EXPECT_TRUE(absl::StrContains(kernels[0].source, mainloop)) << explain({gpu});
  }
  realize({gpu});
  ASSERT_EQ(gpu.shape(), cpu.shape());
  testing::ExpectClose(gpu.to_vector<float>(), cpu.to_vector<double>(), RelativeBound(gpu.dtype()),
                       1e-2);
}

// Compare for a program that differs from an earlier one in values only (scalar arguments):
// the GPU runs it on the plan it already has.
void CompareWithoutNewPlan(const std::function<Tensor(Device)>& build) {
  const int64_t plans = GetStats().plans_built.load();
  const Tensor gpu = build(Device::kCUDA);
  realize({gpu});
  EXPECT_EQ(GetStats().plans_built.load(), plans);
  testing::ExpectClose(gpu.to_vector<float>(), build(Device::kCPU).to_vector<double>(),
                       RelativeBound(gpu.dtype()), 1e-2);
}

TEST_F(AttentionTest, ScaledSoftmaxRaggedTiles) {
  const DType b = DType::kBF16;
  Compare([&](Device d) {
    const Tensor q = Data({2, 4, 200, 64}, 1, b, d), k = Data({2, 4, 300, 64}, 2, b, d);
    return matmul(softmax(matmul(q, transpose(k)) * 0.125, -1), Data({2, 4, 300, 64}, 3, b, d));
  });
}

TEST_F(AttentionTest, BiasAndCausalMaskByHand) {
  const DType h = DType::kF16;
  const int64_t n = 130;
  Compare([&](Device d) {
    Tensor x = cast(matmul(Data({3, n, 128}, 4, h, d), transpose(Data({3, n, 128}, 5, h, d))),
                    DType::kF32) *
                   (1 / std::sqrt(128.0)) +
               Data({n, n}, 6, DType::kF32, d);
    x = masked_fill(x, triu(ones({n, n}, DType::kBool, d), 1), -INFINITY);
    const Tensor e = exp(x - max(x, {-1}, true));
    return matmul(cast(e / sum(e, {-1}, true), h), Data({3, n, 128}, 7, h, d));
  });
}

TEST_F(AttentionTest, GroupedHeadsAndOddSizes) {
  const DType b = DType::kBF16;
  for (const auto& [sq, sk] :
       std::vector<std::pair<int64_t, int64_t>>{{77, 45}, {1, 1}, {1, 300}, {300, 1}}) {
    SCOPED_TRACE(::testing::Message() << sq << " queries, " << sk << " keys");
    Compare([&](Device d) {
      const Tensor q = Data({2, 4, sq, 64}, 8, b, d), k = Data({2, 1, sk, 64}, 9, b, d);
      return matmul(softmax(matmul(q, transpose(k)), -1), Data({2, 1, sk, 64}, 10, b, d));
    });
  }
}

TEST_F(AttentionTest, LargeLogitsAndFullyMaskedRows) {
  const DType b = DType::kBF16;
  // Logits up to about 64 x 16: the running max keeps exp finite.
  Compare([&](Device d) {
    const Tensor q = Data({2, 96, 64}, 11, b, d, 4), k = Data({2, 160, 64}, 12, b, d, 4);
    return matmul(softmax(matmul(q, transpose(k)), -1), Data({2, 160, 64}, 13, b, d));
  });
  // Logits of about 1e10 (bf16 spaces them 2^26 apart): exp(s - max) is 1 at each row's max
  // and 0 elsewhere; rounding max log2(e) would overflow 2^(error).
  Compare([&](Device d) {
    const Tensor q = Data({2, 96, 64}, 11, b, d, 3e4), k = Data({2, 160, 64}, 12, b, d, 3e4);
    return matmul(softmax(matmul(q, transpose(k)), -1), Data({2, 160, 64}, 13, b, d));
  });
  // Rows 0..9 see no key: NaN on both devices (softmax of -inf only).
  Compare([&](Device d) {
    const Tensor q = Data({64, 64}, 14, b, d), k = Data({100, 64}, 15, b, d);
    const Tensor rows = reshape(arange(64, DType::kI32, d), {64, 1});
    const Tensor s = masked_fill(matmul(q, transpose(k)), lt(rows, 10.0), -INFINITY);
    return matmul(softmax(s, -1), Data({100, 64}, 16, b, d));
  });
}

// Causal and sliding-window masks: whole key tiles past the band are skipped (their scores
// are -inf), tiles across it are masked element by element; queries at the end of the keys.
TEST_F(AttentionTest, CausalAndWindowMasksSkipTiles) {
  const DType b = DType::kBF16;
  for (const auto& [sq, sk] : std::vector<std::pair<int64_t, int64_t>>{{700, 700}, {100, 900}}) {
    SCOPED_TRACE(::testing::Message() << sq << " queries, " << sk << " keys");
    Compare([&](Device d) {
      const Tensor q = Data({2, 2, sq, 128}, 11, b, d), k = Data({2, 2, sk, 128}, 12, b, d);
      Tensor s = matmul(q, transpose(k)) * 0.09;
      s = masked_fill(s, triu(ones({sq, sk}, DType::kBool, d), sk - sq + 1), -INFINITY);
      s = where(tril(ones({sq, sk}, DType::kBool, d), sk - sq - 230), -INFINITY, s);
      return matmul(softmax(s, -1), Data({2, 2, sk, 128}, 13, b, d));
    });
  }
}

// A mask's fill is a kernel argument: with -inf the band skips key tiles and tests keys only
// where they cross its edge; with a finite fill the same kernel visits every key tile and
// evaluates the mask at each element as recorded.
TEST_F(AttentionTest, FiniteMaskFillsRunTheRecordedMasks) {
  const DType b = DType::kBF16;
  auto build = [&](Device d, double fill) {
    const Tensor q = Data({2, 3, 300, 64}, 40, b, d), k = Data({2, 3, 300, 64}, 41, b, d);
    Tensor s = matmul(q, transpose(k)) * 0.125;
    s = masked_fill(s, triu(ones({300, 300}, DType::kBool, d), 1), fill);
    return matmul(softmax(s, -1), Data({2, 3, 300, 64}, 42, b, d));
  };
  Compare([&](Device d) { return build(d, -INFINITY); });
  for (double fill : {-3.0, -static_cast<double>(INFINITY), 0.5}) {
    SCOPED_TRACE(::testing::Message() << "fill " << fill);
    CompareWithoutNewPlan([&](Device d) { return build(d, fill); });
  }
}

// More work tiles than SMs, so that each persistent block walks several: 150 entries of 3
// query tiles (450), 3 ragged key tiles each, so the K/V ring's stages and phases run on
// across work tiles off a multiple of its stages (2 at D = 128, 4 at D = 64); the causal band
// leaves whole query tiles without keys (rows 0..150: NaN on both devices), work tiles that
// load Q and nothing else.
TEST_F(AttentionTest, PersistentBlocksWalkManyWorkTiles) {
  const DType b = DType::kBF16;
  const int64_t sq = 300, sk = 260;
  for (const int64_t d : {64, 128}) {
    SCOPED_TRACE(::testing::Message() << "head dimension " << d);
    Compare([&](Device dev) {
      const Tensor q = Data({3, 50, sq, d}, 31, b, dev), k = Data({3, 50, sk, d}, 32, b, dev);
      Tensor s = matmul(q, transpose(k)) * (1 / std::sqrt(static_cast<double>(d)));
      s = masked_fill(s, triu(ones({sq, sk}, DType::kBool, dev), -150), -INFINITY);
      return matmul(softmax(s, -1), Data({3, 50, sk, d}, 33, b, dev));
    });
  }
}

// Query heads of a group folded into one matrix of rows (decoding's one query a head fills
// tiles so): one and 16 queries a head against a causal band, and 50 a head across tiles.
TEST_F(AttentionTest, GroupedQueriesFoldIntoRowsWithCausalMasks) {
  const DType b = DType::kBF16;
  for (const auto& [sq, sk] :
       std::vector<std::pair<int64_t, int64_t>>{{1, 700}, {16, 300}, {50, 129}}) {
    SCOPED_TRACE(::testing::Message() << sq << " queries, " << sk << " keys");
    Compare([&](Device d) {
      const Tensor q = Data({2, 2, 4, sq, 128}, 14, b, d), k = Data({2, 2, 1, sk, 128}, 15, b, d);
      Tensor s = matmul(q, transpose(k)) * 0.09;
      s = masked_fill(s, triu(ones({sq, sk}, DType::kBool, d), sk - sq + 1), -INFINITY);
      return matmul(softmax(s, -1), Data({2, 2, 1, sk, 128}, 16, b, d));
    });
  }
}

// Decoding with few heads: the keys split among blocks; one query (4 rows, 6 shares: merged by
// the last share of each entry) and 16 causal queries a head (64 rows: by a second launch), a
// fully masked share included.
TEST_F(AttentionTest, FewHeadsSplitTheKeys) {
  const DType b = DType::kBF16;
  for (const auto& [sq, sk] : std::vector<std::pair<int64_t, int64_t>>{{1, 3000}, {16, 2100}}) {
    SCOPED_TRACE(::testing::Message() << sq << " queries, " << sk << " keys");
    Compare([&](Device d) {
      const Tensor q = Data({1, 2, 4, sq, 128}, 17, b, d), k = Data({1, 2, 1, sk, 128}, 18, b, d);
      Tensor s = matmul(q, transpose(k)) * 0.09;
      s = masked_fill(s, triu(ones({sq, sk}, DType::kBool, d), sk - sq - 500), -INFINITY);
      return matmul(softmax(s, -1), Data({1, 2, 1, sk, 128}, 19, b, d));
    });
  }
  // Multi-query, 32 query heads over one K/V head (32 rows an entry): 10, 32 and 78 shares
  // merged by a second launch, in blocks of 8, 4 and 2 rows.
  for (const int64_t sk : {5000, 16384, 40000}) {
    SCOPED_TRACE(::testing::Message() << "multi-query, " << sk << " keys");
    Compare([&](Device d) {
      const Tensor q = Data({1, 1, 32, 1, 128}, 20, b, d), k = Data({1, 1, 1, sk, 128}, 21, b, d);
      return matmul(softmax(matmul(q, transpose(k)) * 0.09, -1),
                    Data({1, 1, 1, sk, 128}, 22, b, d));
    });
  }
  // One head: 39 shares (more than a warp's lanes); 100 queries at D = 256 (the combine's rows
  // in two passes through shared memory, several rows a warp); 150 at D = 64 (three consumers);
  // 130 at D = 128 (a second query tile whose second consumer has no rows). Each merged by a
  // second launch.
  for (const auto& [sq, sk, dim] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {1, 20000, 128}, {100, 4000, 256}, {150, 3000, 64}, {130, 2000, 128}}) {
    SCOPED_TRACE(::testing::Message() << sq << " queries, " << sk << " keys, D = " << dim);
    auto build = [&](Device d) {
      const Tensor q = Data({1, 1, sq, dim}, 40, b, d), k = Data({1, 1, sk, dim}, 41, b, d);
      return matmul(softmax(matmul(q, transpose(k)) * 0.07, -1), Data({1, 1, sk, dim}, 42, b, d));
    };
    Compare(build);
    const Target t = runtime::DeviceTarget();
    if (t.major == 9 && t.arch_specific) {
      EXPECT_TRUE(absl::StrContains(explain({build(Device::kCUDA)}), "keys split"));
    }
  }
}

// The merge of a split's shares forced either way (TESSEL_SPLIT_MERGE; the shapes differ from
// the other tests', whose plans are cached): by the last share, also where the schedule would
// launch the combine (39 shares in rounds of 16; rows in passes of 16 through Q's tile, two
// consumers at D = 256, three at D = 64, a consumer without rows), and by a second launch.
TEST_F(AttentionTest, SplitMergedEitherWay) {
  const DType b = DType::kBF16;
  const Target t = runtime::DeviceTarget();
  for (const char* merge : {"last", "launch"}) {
    setenv("TESSEL_SPLIT_MERGE", merge, 1);
    const bool last = std::string(merge) == "last";
    using Case = std::tuple<int64_t, int64_t, int64_t>;
    const std::vector<Case> cases = last ? std::vector<Case>{{1, 20001, 128},
                                                             {100, 4001, 256},
                                                             {150, 3001, 64},
                                                             {130, 2001, 128}}
                                         : std::vector<Case>{{4, 3001, 128}};
    for (const auto& [sq, sk, dim] : cases) {
      SCOPED_TRACE(::testing::Message()
                   << merge << ": " << sq << " queries, " << sk << " keys, D = " << dim);
      auto build = [&](Device d) {
        const Tensor q = Data({1, 1, sq, dim}, 43, b, d), k = Data({1, 1, sk, dim}, 44, b, d);
        return matmul(softmax(matmul(q, transpose(k)) * 0.07, -1), Data({1, 1, sk, dim}, 45, b, d));
      };
      Compare(build);
      if (t.major == 9 && t.arch_specific) {
        EXPECT_EQ(absl::StrContains(explain({build(Device::kCUDA)}), "by the last share"), last);
      }
    }
  }
  unsetenv("TESSEL_SPLIT_MERGE");
}

// A share whose scores are all NaN (its keys' K rows NaN) among shares of masked keys, before
// finite ones: the merge gives the row NaN, as softmax over a row holding NaN does, merged by
// the combine launch (39 shares, a row's in 4 parts of 10: the NaN's part otherwise all -inf)
// and by the last share (rounds of 16 shares: the NaN's round otherwise all -inf).
TEST_F(AttentionTest, ANanShareKeepsItsNan) {
  const DType b = DType::kBF16;
  for (const char* merge : {"launch", "last"}) {
    setenv("TESSEL_SPLIT_MERGE", merge, 1);
    const int64_t sk = std::string(merge) == "last" ? 20005 : 20003;  // plans of their own
    SCOPED_TRACE(merge);
    auto build = [&](Device d) {
      std::vector<float> keys = testing::RandomValues(sk * 128, 51, -1, 1);
      std::fill(keys.begin(), keys.begin() + 512 * 128, NAN);
      const Tensor k = from_vector(keys, {1, 1, sk, 128}, b, d);
      const Tensor position = arange(sk, DType::kI32, d);
      const Tensor masked = logical_and(ge(position, 512), lt(position, 12000));
      const Tensor s = masked_fill(matmul(Data({1, 1, 1, 128}, 50, b, d), transpose(k)) * 0.07,
                                   masked, -INFINITY);
      return matmul(softmax(s, -1), Data({1, 1, sk, 128}, 52, b, d));
    };
    Compare(build);
    const Target t = runtime::DeviceTarget();
    if (t.major == 9 && t.arch_specific) {
      EXPECT_TRUE(absl::StrContains(explain({build(Device::kCUDA)}),
                                    std::string(merge) == "last" ? "split 39 ways and combined by "
                                                                   "the last share"
                                                                 : "split 39 ways and combined by "
                                                                   "blocks of 4 rows"))
          << explain({build(Device::kCUDA)});
    }
  }
  unsetenv("TESSEL_SPLIT_MERGE");
}

// Attention run again on new keys and values in the same buffers, with a second kernel after
// it (a sum of the output): the same launches each time, replayed as one CUDA graph, whose
// launches keep their %gridid. Work tiles by ticket (a causal mask) count over that tag, and
// must start again from 0 on every replay; a split decode merges new shares.
TEST_F(AttentionTest, ReplayedLaunchesStartAgain) {
  const DType b = DType::kBF16;
  struct Case {
    Shape q, kv;
    bool causal;
  };
  // The decodes: 39 shares merged by the combine launch, 6 by the last share of each entry.
  for (const Case& c : {Case{{3, 50, 300, 64}, {3, 50, 260, 64}, true},
                        Case{{1, 2, 4, 1, 128}, {1, 2, 1, 20000, 128}, false},
                        Case{{1, 2, 4, 1, 128}, {1, 2, 1, 3000, 128}, false}}) {
    SCOPED_TRACE(::testing::Message() << (c.causal ? "causal" : "decode"));
    auto attention = [&](const Tensor& q, const Tensor& k, const Tensor& v) {
      const int64_t sq = q.shape()[q.shape().rank() - 2], sk = k.shape()[k.shape().rank() - 2];
      Tensor s = matmul(q, transpose(k)) * 0.09;
      if (c.causal) {
        s = masked_fill(s, triu(ones({sq, sk}, DType::kBool, q.device()), -150), -INFINITY);
      }
      return matmul(softmax(s, -1), v);
    };
    Tensor q = Data(c.q, 50, b, Device::kCUDA), k = Data(c.kv, 51, b, Device::kCUDA),
           v = Data(c.kv, 52, b, Device::kCUDA);
    realize({q, k, v});
    const Target t = runtime::DeviceTarget();
    if (t.major == 9 && t.arch_specific) {
      const std::string text = explain({attention(q, k, v)});
      EXPECT_TRUE(absl::StrContains(text, c.causal ? "by ticket" : "keys split")) << text;
    }
    const int64_t replays = GetStats().graph_replays.load();
    for (uint64_t run = 0; run < 4; ++run) {
      SCOPED_TRACE(::testing::Message() << "run " << run);
      assign(k, Data(c.kv, 60 + run, b, Device::kCUDA));
      assign(v, Data(c.kv, 70 + run, b, Device::kCUDA));
      realize({k, v});
      const Tensor gpu = attention(q, k, v), total = sum(cast(gpu, DType::kF32), {-1});
      realize({gpu, total});
      const Tensor cpu =
          attention(Data(c.q, 50, b, Device::kCPU), Data(c.kv, 60 + run, b, Device::kCPU),
                    Data(c.kv, 70 + run, b, Device::kCPU));
      testing::ExpectClose(gpu.to_vector<float>(), cpu.to_vector<double>(), RelativeBound(b), 1e-2);
    }
    EXPECT_GE(GetStats().graph_replays.load() - replays, 2);
  }
}

// Decoding over a fixed-size cache with a valid length (`arange(S) < length`, the length a
// scalar argument): the keys past it are skipped, and a new length reuses the plan.
TEST_F(AttentionTest, CacheLengthIsAnArgument) {
  const DType b = DType::kBF16;
  const int64_t cache = 4096;
  auto decode = [&](Device d, int64_t length) {
    const Tensor q = Data({2, 4, 1, 128}, 31, b, d), k = Data({2, 4, cache, 128}, 32, b, d);
    const Tensor valid =
        lt(arange(cache, DType::kI32, d), full({}, static_cast<double>(length), DType::kI32, d));
    const Tensor s = where(valid, matmul(q, transpose(k)) * 0.088, -INFINITY);
    return matmul(softmax(s, -1), Data({2, 4, cache, 128}, 33, b, d));
  };
  Compare([&](Device d) { return decode(d, 3000); });
  for (int64_t length : {1, 129, 4096}) {
    SCOPED_TRACE(::testing::Message() << "length " << length);
    CompareWithoutNewPlan([&](Device d) { return decode(d, length); });
  }
}

// Head dimension 256 (wgmma on sm_90a with key tiles of 80; mma.sync elsewhere, reading Q
// from shared memory at each step): ragged tiles, a causal mask, grouped heads, f16; keys past
// a tile of 80 without a mask; columns padded to 256; one query against keys split among
// blocks.
TEST_F(AttentionTest, HeadDimension256) {
  for (DType t : {DType::kBF16, DType::kF16}) {
    Compare([&](Device d) {
      const Tensor q = Data({2, 4, 130, 256}, 34, t, d), k = Data({2, 1, 200, 256}, 35, t, d);
      Tensor s = matmul(q, transpose(k)) * 0.0625;
      s = masked_fill(s, triu(ones({130, 200}, DType::kBool, d), 71), -INFINITY);
      return matmul(softmax(s, -1), Data({2, 1, 200, 256}, 36, t, d));
    });
  }
  const DType b = DType::kBF16;
  for (const auto& [sq, sk, cols] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {300, 333, 256}, {77, 129, 200}, {1, 3000, 256}}) {
    SCOPED_TRACE(::testing::Message() << sq << " queries, " << sk << " keys, " << cols);
    Compare([&](Device d) {
      const Tensor q = Data({1, 3, sq, cols}, 37, b, d), k = Data({1, 3, sk, cols}, 38, b, d);
      return matmul(softmax(matmul(q, transpose(k)) * 0.0625, -1),
                    Data({1, 3, sk, cols}, 39, b, d));
    });
  }
}

// Elementwise work on the output joins the kernel's store, as a GEMM's epilogue: a residual,
// a scale, a widening cast, the output itself returned too; on the split-keys path as well.
TEST_F(AttentionTest, OutputEpilogue) {
  const DType b = DType::kBF16;
  for (const auto& [sq, sk] : std::vector<std::pair<int64_t, int64_t>>{{200, 300}, {1, 3000}}) {
    SCOPED_TRACE(::testing::Message() << sq << " queries, " << sk << " keys");
    std::vector<Tensor> gpu, cpu;
    for (Device d : {Device::kCUDA, Device::kCPU}) {
      const Tensor q = Data({1, 4, sq, 64}, 27, b, d), k = Data({1, 4, sk, 64}, 28, b, d);
      const Tensor o =
          matmul(softmax(matmul(q, transpose(k)) * 0.125, -1), Data({1, 4, sk, 64}, 29, b, d));
      const Tensor y = cast((o + Data({1, 4, sq, 64}, 30, b, d)) * 2.0, DType::kF32);
      (d == Device::kCUDA ? gpu : cpu) = {y, o};
    }
    if (runtime::DeviceTarget().major >= 8) {
      ASSERT_EQ(inspect(gpu).size(), 1u) << explain(gpu);
    }
    realize(gpu);
    for (int i = 0; i < 2; ++i) {
      testing::ExpectClose(gpu[i].to_vector<float>(), cpu[i].to_vector<double>(), 3.2e-2, 1e-2);
    }
  }
}

// q, k and v read in place through their views: heads permuted out of [B, S, H, D], column
// slices of one packed [S, 3 H D] projection (the language model's), a grouped k whose
// heads step apart; head dimensions other than 64 and 128 (padded with zeros); the folded
// decode path over permuted heads.
TEST_F(AttentionTest, OperandsThroughViewsAndOtherHeadDimensions) {
  const DType b = DType::kBF16;
  for (int64_t d : {64, 32, 8, 80, 128}) {
    SCOPED_TRACE(::testing::Message() << "head dimension " << d);
    Compare([&](Device dev) {  // [B, S, H, D] permuted to [B, H, S, D]
      const auto heads = [&](int64_t s, uint64_t seed) {
        return permute(Data({2, s, 3, d}, seed, b, dev), {0, 2, 1, 3});
      };
      const Tensor s = matmul(heads(70, 20), transpose(heads(150, 21))) * 0.2;
      return matmul(softmax(s, -1), heads(150, 22));
    });
  }
  for (int64_t t : {24, 130}) {
    SCOPED_TRACE(::testing::Message() << "packed projection of " << t << " rows");
    Compare([&](Device dev) {
      const Tensor qkv = Data({t, 3 * 4 * 32}, 23, b, dev);
      const auto heads = [&](int part) {
        return permute(reshape(slice(qkv, 1, part * 128, (part + 1) * 128), {t, 4, 32}), {1, 0, 2});
      };
      Tensor s = matmul(heads(0), transpose(heads(1))) * (1 / std::sqrt(32.0));
      s = masked_fill(s, eq(tril(ones({t, t}, DType::kBool, dev)), false), -INFINITY);
      return matmul(softmax(s, -1), heads(2));
    });
  }
  Compare([&](Device dev) {  // decode: 4 query heads a K/V head, k and v heads permuted
    const Tensor q = Data({2, 2, 4, 1, 64}, 24, b, dev);
    const Tensor k = permute(Data({2, 300, 2, 1, 64}, 25, b, dev), {0, 2, 3, 1, 4});
    const Tensor v = permute(Data({2, 300, 2, 1, 64}, 26, b, dev), {0, 2, 3, 1, 4});
    return matmul(softmax(matmul(q, transpose(k)) * 0.125, -1), v);
  });
}

}  // namespace
}  // namespace tessel
