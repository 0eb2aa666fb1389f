// Horizontal GEMM benchmarks (issue 15): sibling GEMMs that share an input (attention's q, k
// and v projections), the gate and up GEMMs of a SwiGLU MLP and the whole MLP, and independent
// GEMMs of different sizes (mixture-of-experts), each next to cuBLASLt in the same binary on the
// same bf16 data. Milliseconds per step, TFLOP/s (2mnk summed over the GEMMs), and for the small
// batches the share of the weight-read roofline: the weights' bytes over the device-to-device
// copy bandwidth (bytes read + written) measured first in the same process.
//
//   tools/gpu_bundle.sh, then on the GPU machine: dist/gemm_group_bench
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/cublas_lt.h"
#include "bench/gpu_timer.h"
#include "benchmark/benchmark.h"
#include "runtime/cuda_driver.h"
#include "tessel.h"

namespace tessel {
namespace {

constexpr int64_t kK = 4096, kFfn = 11008;
const std::vector<int64_t> kQkvWidths = {4096, 1024, 1024};  // 32 query heads over 8 KV heads

double g_copy_gbps = 0;                       // BM_CopyBandwidth
std::map<std::string, double> g_baseline_ms;  // cuBLASLt, by benchmark family and M

CUdeviceptr Pointer(const Tensor& t) {
  return reinterpret_cast<CUdeviceptr>(t.node().buffer()->data());
}

Tensor Bf16(const Shape& shape, uint64_t seed) {
  return randn(shape, seed, DType::kBF16, Device::kCUDA) * 0.02;
}

// Times `body`; sets ms, TFLOP/s for `flops` a step, the weight-read roofline share for
// `weight_bytes`, and the speed against the baseline recorded under `key` (the baseline's
// own run records it).
template <typename F>
void Measure(benchmark::State& state, double flops, double weight_bytes, const std::string& key,
             bool baseline, F&& body) {
  const double total = bench::TimeRuns(state, body, 10);
  const double ms = 1e3 * total / static_cast<double>(state.iterations());
  state.counters["ms"] = ms;
  state.counters["TFLOP/s"] = flops / (ms * 1e-3) / 1e12;
  if (g_copy_gbps > 0) {
    state.counters["%weight_roofline"] = 100 * (weight_bytes / (g_copy_gbps * 1e9)) / (ms * 1e-3);
  }
  if (baseline) {
    g_baseline_ms[key] = ms;
  } else if (auto it = g_baseline_ms.find(key); it != g_baseline_ms.end()) {
    state.counters["x_baseline"] = it->second / ms;
  }
}

// The device-to-device copy bandwidth (bytes read + written), the roofline's unit.
void BM_CopyBandwidth(benchmark::State& state) {
  if (bench::NeedGpu(state)) g_copy_gbps = bench::CopyGbps(state);
}

// q, k and v projections of x [M, 4096]: who 0 cuBLASLt on the weights concatenated by hand
// ([4096, 6144], one GEMM), 1 cuBLASLt three GEMMs, 2 tessel's three matmuls realized
// together (against 0), 3 tessel's one matmul on the concatenated weights (against 0: what
// the siblings' walk costs over one GEMM of the same tiles).
void BM_Qkv(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t m = state.range(0), who = state.range(1);
  int64_t total_n = 0;
  for (int64_t n : kQkvWidths) total_n += n;
  const Tensor x = Bf16({m, kK}, 1);
  std::vector<Tensor> w, out;
  for (size_t i = 0; i < kQkvWidths.size(); ++i) {
    w.push_back(Bf16({kK, kQkvWidths[i]}, 2 + i));
    out.push_back(zeros({m, kQkvWidths[i]}, DType::kBF16, Device::kCUDA));
  }
  const Tensor w_cat = Bf16({kK, total_n}, 9),
               out_cat = zeros({m, total_n}, DType::kBF16, Device::kCUDA);
  std::vector<Tensor> all = {x, w_cat, out_cat};
  all.insert(all.end(), w.begin(), w.end());
  all.insert(all.end(), out.begin(), out.end());
  realize(all);
  const double flops = 2.0 * m * total_n * kK, weights = 2.0 * kK * total_n;
  const std::string key = absl::StrCat("qkv", m);
  if (who == 0) {
    auto lt = bench::LtGemm::Create(m, total_n, kK, bench::LtEpilogue::kNone, 0);
    if (!lt.ok()) return state.SkipWithError(std::string(lt.status().message()).c_str());
    Measure(state, flops, weights, key, true,
            [&] { (void)lt->Run(Pointer(x), Pointer(w_cat), Pointer(out_cat)); });
    state.SetLabel("cuBLASLt, weights concatenated by hand");
  } else if (who == 1) {
    std::vector<bench::LtGemm> lts;
    for (int64_t n : kQkvWidths) {
      auto lt = bench::LtGemm::Create(m, n, kK, bench::LtEpilogue::kNone, 0);
      if (!lt.ok()) return state.SkipWithError(std::string(lt.status().message()).c_str());
      lts.push_back(*lt);
    }
    Measure(state, flops, weights, key, false, [&] {
      for (size_t i = 0; i < lts.size(); ++i)
        (void)lts[i].Run(Pointer(x), Pointer(w[i]), Pointer(out[i]));
    });
    state.SetLabel("cuBLASLt, three GEMMs");
  } else if (who == 3) {
    Measure(state, flops, weights, key, false, [&] { realize({matmul(x, w_cat)}); });
    state.SetLabel("tessel, weights concatenated by hand");
  } else {
    Measure(state, flops, weights, key, false, [&] {
      realize({matmul(x, w[0]), matmul(x, w[1]), matmul(x, w[2])});
    });
    state.SetLabel(absl::StrCat("tessel, ",
                                inspect({matmul(x, w[0]), matmul(x, w[1]), matmul(x, w[2])}).size(),
                                " kernels"));
  }
}

// The gate and up half of a SwiGLU MLP, silu(x wg) * (x wu) with F = 11008: who 0 cuBLASLt's
// two GEMMs then tessel's silu-times kernel (an eager library's sequence), 1 tessel (against
// 0).
void BM_SwiGlu(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t m = state.range(0), who = state.range(1);
  const Tensor x = Bf16({m, kK}, 1), wg = Bf16({kK, kFfn}, 2), wu = Bf16({kK, kFfn}, 3);
  const Tensor g = zeros({m, kFfn}, DType::kBF16, Device::kCUDA),
               u = zeros({m, kFfn}, DType::kBF16, Device::kCUDA);
  realize({x, wg, wu, g, u});
  const double flops = 4.0 * m * kFfn * kK, weights = 4.0 * kK * kFfn;
  const std::string key = absl::StrCat("swiglu", m);
  if (who == 0) {
    auto lt = bench::LtGemm::Create(m, kFfn, kK, bench::LtEpilogue::kNone, 0);
    if (!lt.ok()) return state.SkipWithError(std::string(lt.status().message()).c_str());
    Measure(state, flops, weights, key, true, [&] {
      (void)lt->Run(Pointer(x), Pointer(wg), Pointer(g));
      (void)lt->Run(Pointer(x), Pointer(wu), Pointer(u));
      realize({silu(g) * u});
    });
    state.SetLabel("cuBLASLt gate and up, then tessel's silu(g) * u");
  } else {
    auto step = [&] { return silu(matmul(x, wg)) * matmul(x, wu); };
    Measure(state, flops, weights, key, false, [&] { realize({step()}); });
    state.SetLabel(absl::StrCat("tessel, ", inspect({step()}).size(), " kernels"));
  }
}

// The whole SwiGLU MLP, (silu(x wg) * (x wu)) wd with F = 11008 (issue 15's row: its targets
// are for this, the gate and up above are its first kernel): who 0 cuBLASLt's gate and up,
// tessel's silu-times, cuBLASLt's down projection; 1 tessel (against 0).
void BM_SwiGluMlp(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t m = state.range(0), who = state.range(1);
  const Tensor x = Bf16({m, kK}, 1), wg = Bf16({kK, kFfn}, 2), wu = Bf16({kK, kFfn}, 3),
               wd = Bf16({kFfn, kK}, 4);
  const Tensor g = zeros({m, kFfn}, DType::kBF16, Device::kCUDA),
               u = zeros({m, kFfn}, DType::kBF16, Device::kCUDA),
               y = zeros({m, kK}, DType::kBF16, Device::kCUDA);
  realize({x, wg, wu, wd, g, u, y});
  const double flops = 6.0 * m * kFfn * kK, weights = 6.0 * kK * kFfn;
  const std::string key = absl::StrCat("swiglu_mlp", m);
  if (who == 0) {
    auto up = bench::LtGemm::Create(m, kFfn, kK, bench::LtEpilogue::kNone, 0);
    auto down = bench::LtGemm::Create(m, kK, kFfn, bench::LtEpilogue::kNone, 0);
    if (!up.ok()) return state.SkipWithError(std::string(up.status().message()).c_str());
    if (!down.ok()) return state.SkipWithError(std::string(down.status().message()).c_str());
    Measure(state, flops, weights, key, true, [&] {
      (void)up->Run(Pointer(x), Pointer(wg), Pointer(g));
      (void)up->Run(Pointer(x), Pointer(wu), Pointer(u));
      const Tensor h = silu(g) * u;
      realize({h});
      (void)down->Run(Pointer(h), Pointer(wd), Pointer(y));
    });
    state.SetLabel("cuBLASLt gate and up, tessel's silu(g) * u, cuBLASLt down");
  } else {
    auto step = [&] { return matmul(silu(matmul(x, wg)) * matmul(x, wu), wd); };
    Measure(state, flops, weights, key, false, [&] { realize({step()}); });
    state.SetLabel(absl::StrCat("tessel, ", inspect({step()}).size(), " kernels"));
  }
}

// Eight independent GEMMs x_e [M_e, 2048] w_e [2048, 1408] with different row counts (the
// experts of a mixture-of-experts layer): who 0 a cuBLASLt loop over the experts, 1 tessel's
// eight matmuls realized together (against 0). Sizes: 0 M_e in 1..50, 1 in 512..4096, 2 in
// 1..16 (a decode step's tokens routed to the experts: every problem on swapped tiles).
void BM_Experts(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t sizes = state.range(0);
  const int64_t who = state.range(1), k = 2048, n = 1408;
  const std::vector<int64_t> rows =
      sizes == 1   ? std::vector<int64_t>{512, 4096, 1024, 2048, 768, 3072, 1536, 640}
      : sizes == 2 ? std::vector<int64_t>{1, 3, 8, 2, 16, 5, 1, 12}
                   : std::vector<int64_t>{1, 50, 7, 33, 12, 2, 45, 20};
  std::vector<Tensor> x, w, out, all;
  double flops = 0;
  for (size_t e = 0; e < rows.size(); ++e) {
    x.push_back(Bf16({rows[e], k}, 10 + e));
    w.push_back(Bf16({k, n}, 20 + e));
    out.push_back(zeros({rows[e], n}, DType::kBF16, Device::kCUDA));
    all.insert(all.end(), {x[e], w[e], out[e]});
    flops += 2.0 * rows[e] * n * k;
  }
  realize(all);
  const double weights = 2.0 * k * n * static_cast<double>(rows.size());
  const std::string key = absl::StrCat("experts_", sizes);
  if (who == 0) {
    std::vector<bench::LtGemm> lts;
    for (int64_t m : rows) {
      auto lt = bench::LtGemm::Create(m, n, k, bench::LtEpilogue::kNone, 0);
      if (!lt.ok()) return state.SkipWithError(std::string(lt.status().message()).c_str());
      lts.push_back(*lt);
    }
    Measure(state, flops, weights, key, true, [&] {
      for (size_t e = 0; e < lts.size(); ++e)
        (void)lts[e].Run(Pointer(x[e]), Pointer(w[e]), Pointer(out[e]));
    });
    state.SetLabel("cuBLASLt, a loop over the experts");
  } else {
    auto step = [&] {
      std::vector<Tensor> y;
      for (size_t e = 0; e < rows.size(); ++e) y.push_back(matmul(x[e], w[e]));
      return y;
    };
    Measure(state, flops, weights, key, false, [&] { realize(step()); });
    state.SetLabel(absl::StrCat("tessel, ", inspect(step()).size(), " kernels"));
  }
}

BENCHMARK(BM_CopyBandwidth)->UseManualTime()->Unit(benchmark::kMillisecond);
// Row counts in this order: after a program's first row count, the next ones of the same
// program run on kernels that take the rows as an argument, sized for their bucket (M = 16
// after 8192 runs the kernel for 16..31 rows). `--benchmark_filter=/16/` measures 16 rows on
// their own kernel (bench/RESULTS.md says which a figure is).
BENCHMARK(BM_Qkv)
    ->ArgsProduct({{64, 1024, 8192, 16, 100}, {0, 1, 2}})
    ->ArgsProduct({{1024, 8192}, {3}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);
BENCHMARK(BM_SwiGlu)
    ->ArgsProduct({{64, 1024, 8192, 16, 100}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);
BENCHMARK(BM_SwiGluMlp)
    ->ArgsProduct({{64, 1024, 8192}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);
BENCHMARK(BM_Experts)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);

}  // namespace
}  // namespace tessel

BENCHMARK_MAIN();
