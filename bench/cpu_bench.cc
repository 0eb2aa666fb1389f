// CPU backend benchmarks (Google Benchmark). The CPU backend is the reference path; these
// figures track its cost and the host overhead of recording and realizing graphs.
//
//   bazel run -c opt //bench:cpu_bench
#include <cmath>

#include "benchmark/benchmark.h"
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
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MatmulF32)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

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
  state.counters["GB/s"] = benchmark::Counter(2.0 * 4 * n * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Pointwise10Ops)->Arg(1 << 20)->Unit(benchmark::kMicrosecond)->UseRealTime();

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

}  // namespace
}  // namespace tessel

BENCHMARK_MAIN();
