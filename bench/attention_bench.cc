// Attention benchmarks (issue 14): the plain expression matmul(softmax(q k^T * scale), v),
// with a causal mask written with triu/masked_fill where asked, which the planner runs as one
// attention kernel; in TFLOP/s of the two products (4 * B * H * S_q * S_k * D, halved under a
// causal mask, as FlashAttention counts). PyTorch's scaled_dot_product_attention on the same
// shapes comes from tools/sdpa_baseline.py in the same run (dist/run.sh attention).
//
//   tools/gpu_bundle.sh, then on the GPU machine: bash dist/run.sh attention
#include <cmath>

#include "bench/gpu_timer.h"
#include "benchmark/benchmark.h"
#include "tessel.h"

namespace tessel {
namespace {

// Arguments: batch, query heads, key/value heads, S_q, S_k, head dimension, causal.
void BM_Attention(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t b = state.range(0), h = state.range(1), hkv = state.range(2);
  const int64_t sq = state.range(3), sk = state.range(4), d = state.range(5);
  const bool causal = state.range(6) != 0;
  const DType t = DType::kBF16;
  const Tensor q = randn({b, h, sq, d}, 1, t, Device::kCUDA);
  // Grouped heads: k and v hold hkv heads, broadcast over the h / hkv query heads of a group.
  const Tensor k = randn({b, hkv, 1, sk, d}, 2, t, Device::kCUDA);
  const Tensor v = randn({b, hkv, 1, sk, d}, 3, t, Device::kCUDA);
  realize({q, k, v});
  const Tensor qg = reshape(q, {b, hkv, h / hkv, sq, d});
  // The causal mask of a query block at the end of the keys (S_q <= S_k, as in decoding).
  auto output = [&] {
    Tensor s = matmul(qg, transpose(k)) * (1 / std::sqrt(static_cast<double>(d)));
    if (causal) {
      s = masked_fill(s, triu(ones({sq, sk}, DType::kBool, Device::kCUDA), sk - sq + 1), -INFINITY);
    }
    return matmul(softmax(s, -1), v);
  };
  const double total = bench::TimeRuns(
      state, [&] { realize({output()}); }, 5);
  const double flops = 4.0 * b * h * sq * sk * d * (causal ? 0.5 : 1.0);
  state.counters["TFLOP/s"] = flops * state.iterations() / total / 1e12;
  // Decoding reads all of K and V once: its roofline is bandwidth, not tensor cores.
  state.counters["KV_GB/s"] = 2.0 * b * hkv * sk * d * 2 * state.iterations() / total / 1e9;
  const std::vector<KernelInfo> kernels = inspect({output()});
  state.SetLabel(kernels.size() == 1 ? "one attention kernel" : "unfused");
}

BENCHMARK(BM_Attention)
    ->Args({8, 16, 16, 4096, 4096, 128, 0})  // the shape
    ->Args({8, 16, 16, 4096, 4096, 128, 1})  // causal
    ->Args({2, 16, 16, 16384, 16384, 128, 0})
    ->Args({2, 16, 16, 16384, 16384, 128, 1})
    ->Args({1, 16, 16, 8192, 8192, 128, 1})  // causal, few heads: the work tiles' order counts
    ->Args({8, 16, 16, 4096, 4096, 64, 0})   // head dimension 64
    ->Args({8, 16, 16, 4096, 4096, 64, 1})
    ->Args({4, 16, 16, 4096, 4096, 256, 0})  // head dimension 256 (key tiles of 80)
    ->Args({4, 16, 16, 4096, 4096, 256, 1})
    ->Args({4, 32, 8, 4096, 4096, 128, 0})  // grouped heads: 8 KV heads for 32 query heads
    ->Args({4, 32, 8, 4096, 4096, 128, 1})
    ->Args({16, 32, 8, 1, 8192, 128, 0})  // decode: one query against a long cache
    ->Args({1, 32, 8, 1, 16384, 128, 0})  // one sequence: the keys split among blocks
    ->Args({1, 32, 8, 1, 4096, 128, 0})
    ->Args({1, 32, 8, 1, 65536, 128, 0})
    ->Args({4, 32, 8, 1, 16384, 128, 0})
    ->Args({1, 1, 1, 1, 65536, 128, 0})    // one head: 128 shares of one row to merge
    ->Args({1, 64, 8, 1, 16384, 128, 0})   // 8 query heads a K/V head: 8 rows of 128 a share
    ->Args({1, 32, 1, 1, 16384, 128, 0})   // multi-query: 32 rows over one K/V head
    ->Args({1, 32, 1, 1, 131072, 128, 0})  // the same over 64 MB of K/V: 132 shares to merge
    ->Args({16, 32, 1, 1, 8192, 128, 0})   // 16 sequences of multi-query
    ->Args({16, 32, 8, 16, 8192, 128, 1})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);

// Decoding over a fixed-size K/V cache of which `length` positions are valid (a mask
// `arange(cache) < length`, the length a scalar argument: one plan for every length; the
// kernel skips the key tiles past it). Arguments: batch, query heads, KV heads, cache,
// length. KV_GB/s counts the valid K/V.
void BM_AttentionCache(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t b = state.range(0), h = state.range(1), hkv = state.range(2);
  const int64_t cache = state.range(3), length = state.range(4), d = 128;
  const DType t = DType::kBF16;
  const Tensor q = randn({b, hkv, h / hkv, 1, d}, 1, t, Device::kCUDA);
  const Tensor k = randn({b, hkv, 1, cache, d}, 2, t, Device::kCUDA);
  const Tensor v = randn({b, hkv, 1, cache, d}, 3, t, Device::kCUDA);
  realize({q, k, v});
  auto output = [&] {
    const Tensor valid = lt(arange(cache, DType::kI32, Device::kCUDA),
                            full({}, static_cast<double>(length), DType::kI32, Device::kCUDA));
    const Tensor s = where(valid, matmul(q, transpose(k)) * (1 / std::sqrt(128.0)), -INFINITY);
    return matmul(softmax(s, -1), v);
  };
  const double total = bench::TimeRuns(
      state, [&] { realize({output()}); }, 5);
  state.counters["KV_GB/s"] = 2.0 * b * hkv * length * d * 2 * state.iterations() / total / 1e9;
  const std::vector<KernelInfo> kernels = inspect({output()});
  state.SetLabel(kernels.size() == 1 ? "one attention kernel" : "unfused");
}

BENCHMARK(BM_AttentionCache)
    ->Args({16, 32, 8, 8192, 8192})
    ->Args({16, 32, 8, 8192, 2048})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);

// q, k and v stored [B, S, H, D] (FlashAttention's and many models' layout: the heads of a
// projection's output) and permuted to [B, H, S, D] as views, which the kernel reads in
// place. Arguments: batch, heads, S, head dimension.
void BM_AttentionHeadsLast(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t b = state.range(0), h = state.range(1), s = state.range(2), d = state.range(3);
  const DType t = DType::kBF16;
  const Tensor q = randn({b, s, h, d}, 1, t, Device::kCUDA);
  const Tensor k = randn({b, s, h, d}, 2, t, Device::kCUDA);
  const Tensor v = randn({b, s, h, d}, 3, t, Device::kCUDA);
  realize({q, k, v});
  auto heads = [](const Tensor& x) { return permute(x, {0, 2, 1, 3}); };
  auto output = [&] {
    const Tensor scores =
        matmul(heads(q), transpose(heads(k))) * (1 / std::sqrt(static_cast<double>(d)));
    return matmul(softmax(scores, -1), heads(v));
  };
  const double total = bench::TimeRuns(
      state, [&] { realize({output()}); }, 5);
  state.counters["TFLOP/s"] = 4.0 * b * h * s * s * d * state.iterations() / total / 1e12;
  const std::vector<KernelInfo> kernels = inspect({output()});
  state.SetLabel(kernels.size() == 1 ? "one attention kernel" : "unfused");
}

BENCHMARK(BM_AttentionHeadsLast)
    ->Args({8, 16, 4096, 128})
    ->Args({8, 16, 4096, 64})
    ->Args({8, 32, 4096, 32})  // head dimension 32, padded to 64
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);

}  // namespace
}  // namespace tessel

BENCHMARK_MAIN();
