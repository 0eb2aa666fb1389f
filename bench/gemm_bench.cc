// GEMM benchmarks (issue 4): tessel's tensor-core GEMMs against cuBLASLt, in one binary, on
// the same bf16 data, in TFLOP/s (2mnk per GEMM). Every cuBLASLt figure is measured before
// the tessel figures that compare with it ("%cublas": against cuBLASLt's GEMM alone for the
// same shape).
//
//   tools/gpu_bundle.sh, then on the GPU machine: dist/gemm_bench
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/cublas_lt.h"
#include "bench/gpu_timer.h"
#include "benchmark/benchmark.h"
#include "tessel.h"

namespace tessel {
namespace {

using Mnk = std::tuple<int64_t, int64_t, int64_t>;
std::map<Mnk, double> g_cublas_tflops;          // cuBLASLt's GEMM alone, by shape
std::map<Mnk, double> g_cublas_tf32_tflops;     // cuBLASLt's f32 GEMM on TF32, by shape
std::map<Mnk, double> g_cublas_f32_tflops;      // cuBLASLt's exact f32 GEMM (SGEMM), by shape
std::map<Mnk, double> g_cublas_batched_tflops;  // cuBLASLt's strided batch (BM_Batched)

enum Epilogue : int64_t { kNone = 0, kBiasGelu = 1, kBiasGeluResidual = 2 };

CUdeviceptr Pointer(const Tensor& t) {
  return reinterpret_cast<CUdeviceptr>(t.node().buffer()->data());
}

// The operands, realized on the GPU.
struct Problem {
  int64_t m, n, k;
  Tensor x, w, bias, residual, out;
  explicit Problem(const benchmark::State& state)
      : m(state.range(0)), n(state.range(1)), k(state.range(2)) {
    x = randn({m, k}, 1, DType::kBF16, Device::kCUDA);
    w = randn({k, n}, 2, DType::kBF16, Device::kCUDA);
    bias = randn({n}, 3, DType::kBF16, Device::kCUDA);
    residual = randn({m, n}, 4, DType::kBF16, Device::kCUDA);
    out = zeros({m, n}, DType::kBF16, Device::kCUDA);
    realize({x, w, bias, residual, out});
  }
  Mnk key() const { return {m, n, k}; }
};

// Runs `body` under the timer; `versus_cublas` adds the percentage of cuBLASLt's GEMM alone.
template <typename F>
void Measure(benchmark::State& state, const Mnk& mnk, bool versus_cublas, F&& body) {
  const double total = bench::TimeRuns(state, body, 10);
  const auto [m, n, k] = mnk;
  const double tflops = 2.0 * m * n * k * state.iterations() / total / 1e12;
  state.counters["TFLOP/s"] = tflops;
  if (auto it = g_cublas_tflops.find(mnk); versus_cublas && it != g_cublas_tflops.end()) {
    state.counters["%cublas"] = 100 * tflops / it->second;
  }
}

// cuBLASLt: the GEMM alone (the baseline), or with its own fused bias + GELU epilogue.
void BM_Cublas(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const Problem p(state);
  const bool gelu = state.range(3) == kBiasGelu;
  auto lt = bench::LtGemm::Create(p.m, p.n, p.k,
                                  gelu ? bench::LtEpilogue::kBiasGelu : bench::LtEpilogue::kNone,
                                  Pointer(p.bias));
  if (!lt.ok()) return state.SkipWithError(std::string(lt.status().message()).c_str());
  Measure(state, p.key(), gelu, [&] { (void)lt->Run(Pointer(p.x), Pointer(p.w), Pointer(p.out)); });
  if (!gelu) g_cublas_tflops[p.key()] = state.counters["TFLOP/s"];
  state.SetLabel(gelu ? "cuBLASLt GEMM + its bias+GELU epilogue" : "cuBLASLt GEMM");
}

// cuBLASLt's GEMM, then tessel's bias + GELU as a separate kernel: what an eager library does.
void BM_CublasThenTesselEpilogue(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const Problem p(state);
  auto lt = bench::LtGemm::Create(p.m, p.n, p.k, bench::LtEpilogue::kNone, 0);
  if (!lt.ok()) return state.SkipWithError(std::string(lt.status().message()).c_str());
  Measure(state, p.key(), true, [&] {
    (void)lt->Run(Pointer(p.x), Pointer(p.w), Pointer(p.out));
    realize({gelu(p.out + p.bias)});
  });
  state.SetLabel("cuBLASLt GEMM, then tessel bias+GELU kernel");
}

// tessel: the GEMM with its epilogue fused.
void BM_Tessel(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const Problem p(state);
  const int64_t epilogue = state.range(3);
  Measure(state, p.key(), true, [&] {
    Tensor y = matmul(p.x, p.w);
    if (epilogue != kNone) y = gelu(y + p.bias);
    if (epilogue == kBiasGeluResidual) y = y + p.residual;
    realize({y});
  });
  state.SetLabel(epilogue == kNone       ? "tessel GEMM"
                 : epilogue == kBiasGelu ? "tessel GEMM + bias+GELU, fused"
                                         : "tessel GEMM + bias+GELU+residual, fused");
}

// Decode-shaped GEMMs as a model runs them: each call reads another weight (copies rotated
// through 256 MB, five times the L2), so that no call finds its weight in L2 left by the
// previous one, unlike BM_Cublas/BM_Tessel's repeated weight. who: 0 cuBLASLt, 1 tessel.
std::map<Mnk, double> g_cublas_cold_tflops;
void BM_ColdWeights(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const Mnk mnk{m, n, k};
  const int64_t copies = std::max<int64_t>(2, (int64_t{256} << 20) / (k * n * 2));
  Tensor x = randn({m, k}, 1, DType::kBF16, Device::kCUDA);
  Tensor out = zeros({m, n}, DType::kBF16, Device::kCUDA);
  std::vector<Tensor> w;
  for (int64_t i = 0; i < copies; ++i)
    w.push_back(randn({k, n}, 2 + i, DType::kBF16, Device::kCUDA));
  realize({x, out});
  realize(w);
  int64_t call = 0;
  if (state.range(3) == 0) {
    auto lt = bench::LtGemm::Create(m, n, k, bench::LtEpilogue::kNone, 0);
    if (!lt.ok()) return state.SkipWithError(std::string(lt.status().message()).c_str());
    Measure(state, mnk, false,
            [&] { (void)lt->Run(Pointer(x), Pointer(w[call++ % copies]), Pointer(out)); });
    g_cublas_cold_tflops[mnk] = state.counters["TFLOP/s"];
    state.SetLabel("cuBLASLt GEMM, weights not in L2");
    return;
  }
  Measure(state, mnk, false, [&] { realize({matmul(x, w[call++ % copies])}); });
  if (auto it = g_cublas_cold_tflops.find(mnk); it != g_cublas_cold_tflops.end()) {
    state.counters["%cublas"] = 100 * state.counters["TFLOP/s"] / it->second;
  }
  // The weight-read roofline: GB/s of the weight alone.
  state.counters["weight_GB/s"] = state.counters["TFLOP/s"] * 1e3 / m;
  state.SetLabel("tessel GEMM, weights not in L2");
}

// f32 GEMMs: cuBLASLt on TF32 (CUBLAS_COMPUTE_32F_FAST_TF32) and exact (SGEMM) first, then
// tessel under MatmulPrecision::kTF32 (against the first), kHighest and kHigh (three TF32
// products; both against SGEMM).
void BM_F32(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const Mnk mnk{m, n, k};
  Tensor x = randn({m, k}, 1, DType::kF32, Device::kCUDA);
  Tensor w = randn({k, n}, 2, DType::kF32, Device::kCUDA);
  Tensor out = zeros({m, n}, DType::kF32, Device::kCUDA);
  realize({x, w, out});
  const int64_t who = state.range(3);
  if (who <= 1) {  // 0: cuBLASLt on TF32, 1: cuBLASLt SGEMM
    auto lt = bench::LtGemm::Create(m, n, k, bench::LtEpilogue::kNone, 0,
                                    who == 0 ? bench::LtType::kTf32 : bench::LtType::kF32);
    if (!lt.ok()) return state.SkipWithError(std::string(lt.status().message()).c_str());
    Measure(state, mnk, false, [&] { (void)lt->Run(Pointer(x), Pointer(w), Pointer(out)); });
    (who == 0 ? g_cublas_tf32_tflops : g_cublas_f32_tflops)[mnk] = state.counters["TFLOP/s"];
    state.SetLabel(who == 0 ? "cuBLASLt, f32 on TF32" : "cuBLASLt, exact f32 (SGEMM)");
    return;
  }
  // 2: tessel on TF32, 3: tessel exact f32, 4: tessel on three TF32 products
  const MatmulPrecision precision = who == 2   ? MatmulPrecision::kTF32
                                    : who == 3 ? MatmulPrecision::kHighest
                                               : MatmulPrecision::kHigh;
  set_matmul_precision(precision);
  Measure(state, mnk, false, [&] { realize({matmul(x, w)}); });
  set_matmul_precision(MatmulPrecision::kHighest);
  const auto& baseline = who == 2 ? g_cublas_tf32_tflops : g_cublas_f32_tflops;
  if (auto it = baseline.find(mnk); it != baseline.end()) {
    state.counters[who == 2 ? "%cublas_tf32" : "%sgemm"] =
        100 * state.counters["TFLOP/s"] / it->second;
  }
  state.SetLabel(who == 2   ? "tessel, f32 on TF32"
                 : who == 3 ? "tessel, exact f32"
                            : "tessel, f32 on three TF32 products (kHigh)");
}

// Batched bf16 GEMMs [batch, m, k] x [batch, k, n] (B shared by every entry where `shared`,
// as a weight is: [k, n]); who 0: cuBLASLt's strided batch, 1: tessel (against it).
void BM_Batched(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t batch = state.range(0), m = state.range(1), n = state.range(2), k = state.range(3);
  const bool shared = state.range(4) != 0, tessel = state.range(5) != 0;
  Tensor x = randn({batch, m, k}, 1, DType::kBF16, Device::kCUDA);
  Tensor w = shared ? randn({k, n}, 2, DType::kBF16, Device::kCUDA)
                    : randn({batch, k, n}, 2, DType::kBF16, Device::kCUDA);
  Tensor out = zeros({batch, m, n}, DType::kBF16, Device::kCUDA);
  realize({x, w, out});
  // Keyed by the whole batch's work, so that TFLOP/s and %cublas count every entry.
  const Mnk key{batch * m, n, k * (shared ? -1 : 1)};
  auto& baseline = g_cublas_batched_tflops;
  if (!tessel) {
    bench::LtBatch b{batch, m * k, shared ? 0 : k * n, m * n};
    auto lt = bench::LtGemm::Create(m, n, k, bench::LtEpilogue::kNone, 0, bench::LtType::kBf16, b);
    if (!lt.ok()) return state.SkipWithError(std::string(lt.status().message()).c_str());
    Measure(state, {batch * m, n, k}, false,
            [&] { (void)lt->Run(Pointer(x), Pointer(w), Pointer(out)); });
    baseline[key] = state.counters["TFLOP/s"];
    state.SetLabel("cuBLASLt, strided batch");
    return;
  }
  Measure(state, {batch * m, n, k}, false, [&] { realize({matmul(x, w)}); });
  if (auto it = baseline.find(key); it != baseline.end()) {
    state.counters["%cublas"] = 100 * state.counters["TFLOP/s"] / it->second;
  }
  state.SetLabel(shared ? "tessel, batch x shared weight" : "tessel, batch");
}

void Shapes(benchmark::internal::Benchmark* b, std::initializer_list<int64_t> epilogues) {
  const Mnk shapes[] = {{8192, 8192, 8192},
                        {4096, 4096, 4096},
                        {8192, 11008, 4096},
                        {4096, 14336, 4096},
                        {16, 8192, 8192},
                        {128, 8192, 8192},
                        {16, 4096, 4096},
                        {1, 4096, 4096},
                        {32, 4096, 4096},
                        // tiles of 128 x 256 with a last round of 60 (the second: their K
                        // in slices) and 56 (the third: whole, a cut measured no faster)
                        {1536, 4096, 4096},
                        {2560, 4096, 4096},
                        // the down projection of an MLP of F = 11008 (gemm_group_bench's
                        // BM_SwiGluMlp): 128 tiles of 128 x 256 for 132 SMs
                        {1024, 4096, 11008}};
  for (const auto& [m, n, k] : shapes) {
    for (int64_t e : epilogues) b->Args({m, n, k, e});
  }
  b->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.3);
}

BENCHMARK(BM_Cublas)->Apply([](auto* b) { Shapes(b, {kNone}); });
BENCHMARK(BM_Tessel)->Apply([](auto* b) { Shapes(b, {kNone}); });
BENCHMARK(BM_Cublas)
    ->Args({8192, 8192, 8192, kBiasGelu})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);
BENCHMARK(BM_CublasThenTesselEpilogue)
    ->Args({8192, 8192, 8192, kNone})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);
BENCHMARK(BM_Tessel)
    ->Args({8192, 8192, 8192, kBiasGelu})
    ->Args({8192, 8192, 8192, kBiasGeluResidual})
    ->Args({8192, 11008, 4096, kBiasGeluResidual})
    ->Args({4096, 14336, 4096, kBiasGeluResidual})
    // Rows that are not 16-byte multiples (B's 4095, then both operands'): staged to padded
    // rows, against the aligned 4096^3 above (issue 13: >= 90% of it).
    ->Args({4097, 4095, 4096, kNone})
    ->Args({4097, 4095, 4095, kNone})
    // Each irregularity alone: rows of A past a tile (B and the output aligned), B's and the
    // output's rows (staged B, an epilogue of scalar stores).
    ->Args({4097, 4096, 4096, kNone})
    ->Args({4096, 4095, 4096, kNone})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);

// Batches of small matrices (issue 13: >= cuBLAS's strided batch): the 64 x 512³,
// attention-sized products, many tiny ones, and a shared weight (a broadcast batch).
BENCHMARK(BM_Batched)
    ->ArgsProduct({{64}, {512}, {512}, {512}, {0}, {0, 1}})
    ->ArgsProduct({{512}, {128}, {128}, {128}, {0}, {0, 1}})
    ->ArgsProduct({{4096}, {64}, {64}, {64}, {0}, {0, 1}})
    ->ArgsProduct({{128}, {1024}, {1024}, {128}, {0}, {0, 1}})
    ->ArgsProduct({{32}, {256}, {4096}, {4096}, {1}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);

BENCHMARK(BM_ColdWeights)
    // A server's changing batch: the kernels take the rows from the second size on, with
    // tiles for each power-of-two bucket's fewest (24, 48, 65-127: the same kernels; the last
    // tile row's A box moved in bounds from 65). TESSEL_DYNAMIC=0: each size's own kernel.
    ->ArgsProduct({{1, 16, 24, 32, 48, 64, 100, 127}, {4096}, {4096}, {0, 1}})
    ->ArgsProduct({{16}, {14336}, {4096}, {0, 1}})
    ->ArgsProduct({{65, 80, 96, 112, 120, 128}, {4096}, {4096}, {0, 1}})
    // Wide weights at 65-128 rows (an FFN's and an LM head's): one swapped tile row of 128
    // reads each B tile once; at 64 rows tiles of 64 x 128 (14336) or 64 x 256 (32000) in
    // one round.
    ->ArgsProduct({{64, 100, 127, 128}, {14336, 32000}, {4096}, {0, 1}})
    // An MLP's down projection at 64 rows (F = 11008): 64 tiles of 64 x 64, K in two slices.
    ->ArgsProduct({{64}, {4096}, {11008}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);

BENCHMARK(BM_F32)
    ->ArgsProduct({{4096, 8192}, {4096}, {4096}, {0, 1, 2, 3, 4}})
    // Few rows on TF32 (64-row tiles): B's read is the whole cost.
    ->ArgsProduct({{16, 64}, {4096}, {4096}, {0, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.3);

}  // namespace
}  // namespace tessel

BENCHMARK_MAIN();
