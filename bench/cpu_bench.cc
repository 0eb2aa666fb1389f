// CPU backend benchmarks (Google Benchmark). The CPU backend is the reference path; these
// figures track its cost and the host overhead of recording and realizing graphs.
//
//   bazel run -c opt //bench:cpu_bench
#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <vector>

#include "backend/program_key.h"
#include "benchmark/benchmark.h"
#include "runtime/lru_cache.h"
#include "tessel.h"

namespace tessel {
namespace {

// f32 (n x n) @ (n x n) through Eigen's GEMM; inputs are realized leaves, so only the
// product is timed (the result is freed at the end of each iteration).
void BM_MatmulF32(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = randn({n, n}, 1, DType::kF32, Device::kCPU);
  Tensor b = randn({n, n}, 2, DType::kF32, Device::kCPU);
  realize({a, b});
  for (auto _ : state) {
    Tensor c = matmul(a, b);
    realize({c});
    benchmark::DoNotOptimize(c.node().buffer()->data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * n * n * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MatmulF32)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// Baseline: the same product with Eigen called directly, in this binary.
void BM_BaselineEigenGemmF32(benchmark::State& state) {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t n = state.range(0);
  Matrix a = Matrix::Random(n, n), b = Matrix::Random(n, n), c(n, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * n * n * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_BaselineEigenGemmF32)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

// Ten elementwise operations on one input (mul, add, tanh, mul, sub, relu, abs, add, div,
// mul). GB/s counts the bytes a fused kernel must move: the input read and output written.
Tensor TenOpChain(const Tensor& x) {
  Tensor t = relu(tanh(x * 1.5 + 0.25) * x - 0.5);
  return t / (abs(x) + 1.0) * 2.0;
}

void BM_Pointwise10Ops(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor x = randn({n}, 1, DType::kF32, Device::kCPU);
  realize({x});
  for (auto _ : state) {
    Tensor y = TenOpChain(x);
    realize({y});
    benchmark::DoNotOptimize(y.node().buffer()->data());
  }
  state.counters["GB/s"] =
      benchmark::Counter(2.0 * 4 * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Pointwise10Ops)->Arg(1 << 20)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Baseline: the same ten operations fused by hand into one loop (what a fusing CPU
// backend could reach), and a plain copy of the same bytes.
void BM_BaselineHandFused10Ops(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> x = randn({n}, 1, DType::kF32, Device::kCPU).to_vector<float>();
  std::vector<float> y(n);
  for (auto _ : state) {
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[i];
      const float t = std::max(std::tanh(v * 1.5f + 0.25f) * v - 0.5f, 0.0f);
      y[i] = t / (std::abs(v) + 1.0f) * 2.0f;
    }
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GB/s"] =
      benchmark::Counter(2.0 * 4 * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_BaselineHandFused10Ops)->Arg(1 << 20)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_BaselineMemcpy(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> x(n, 1.0f), y(n);
  for (auto _ : state) {
    std::memcpy(y.data(), x.data(), n * sizeof(float));
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GB/s"] =
      benchmark::Counter(2.0 * 4 * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_BaselineMemcpy)->Arg(1 << 20)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Host cost of recording a 10-op graph on 1K elements and realizing it: per-op overhead
// dominates at this size.
void BM_RecordAndRealize10Ops(benchmark::State& state) {
  Tensor x = randn({1024}, 1, DType::kF32, Device::kCPU);
  realize({x});
  for (auto _ : state) {
    Tensor y = TenOpChain(x);
    realize({y});
    benchmark::DoNotOptimize(y.node().buffer()->data());
  }
}
BENCHMARK(BM_RecordAndRealize10Ops)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Recording alone, for the split between the graph and the kernels.
void BM_Record10Ops(benchmark::State& state) {
  Tensor x = randn({1024}, 1, DType::kF32, Device::kCPU);
  for (auto _ : state) {
    Tensor y = TenOpChain(x);
    benchmark::DoNotOptimize(y.node_ptr().get());
  }
}
BENCHMARK(BM_Record10Ops)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The CUDA backend's host path before launching, for a plan-cache hit: collecting the
// program, ordering it, its structural key and the cache lookup. No GPU needed.
void BM_PlanCacheLookup10Ops(benchmark::State& state) {
  Tensor x = randn({1024}, 1, DType::kF32, Device::kCPU);
  realize({x});
  runtime::LruCache<std::vector<int64_t>, int> plans(512);
  for (auto _ : state) {
    Tensor y = TenOpChain(x);
    const Program program = CollectProgram({&y.node()});
    const backend::OrderedProgram ordered = backend::OrderProgram(program);
    std::vector<int64_t> key = backend::StructureKey(ordered, program.outputs, true);
    if (plans.Find(key) == nullptr) plans.Put(std::move(key), 1);
  }
}
BENCHMARK(BM_PlanCacheLookup10Ops)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The same for 64 parameter updates p - 0.01 g realized together (gpu_bench's
// BM_SixtyFourUpdates, whose GPU time is below this host time).
void BM_PlanCacheLookup64Updates(benchmark::State& state) {
  std::vector<Tensor> p, g;
  for (int i = 0; i < 64; ++i) {
    p.push_back(randn({4096}, i, DType::kF32, Device::kCPU));
    g.push_back(randn({4096}, 100 + i, DType::kF32, Device::kCPU));
  }
  realize(p);
  realize(g);
  runtime::LruCache<std::vector<int64_t>, int> plans(512);
  for (auto _ : state) {
    std::vector<Tensor> out;
    for (int i = 0; i < 64; ++i) out.push_back(p[i] - 0.01 * g[i]);
    std::vector<const Node*> roots;
    for (const Tensor& t : out) roots.push_back(&t.node());
    const Program program = CollectProgram(roots);
    const backend::OrderedProgram ordered = backend::OrderProgram(program);
    std::vector<int64_t> key = backend::StructureKey(ordered, program.outputs, true);
    if (plans.Find(key) == nullptr) plans.Put(std::move(key), 1);
  }
}
BENCHMARK(BM_PlanCacheLookup64Updates)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace tessel

BENCHMARK_MAIN();
