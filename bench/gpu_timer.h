// What the GPU benchmarks share: GPU time of a piece of work, by CUDA events on tessel's
// current stream, and skipping where there is no GPU.
#ifndef TESSEL_BENCH_GPU_TIMER_H_
#define TESSEL_BENCH_GPU_TIMER_H_

#include <chrono>

#include "benchmark/benchmark.h"
#include "runtime/cuda_driver.h"
#include "tessel.h"

namespace tessel::bench {

// True where a GPU is usable; else marks the benchmark skipped.
inline bool NeedGpu(benchmark::State& state) {
  if (GetBackend(Device::kCUDA).ok()) return true;
  state.SkipWithError("no usable GPU");
  return false;
}

// Mean GPU seconds of `iterations` back-to-back runs of `body` (host work overlaps the queue),
// as in a loop that runs it: one run is queued before the start event, so the timed runs
// start back to back rather than after the host has enqueued the first (that idle gap, the
// host time of one run, counted once per batch of runs before 2026-11-25). With `host_seconds`,
// also the mean host time of one run (enqueueing only): where it is close to the GPU time, the
// figure measures the host path, not the kernels.
template <typename F>
double GpuSeconds(F&& body, int iterations, double* host_seconds = nullptr) {
  const runtime::Driver* d = *runtime::GetDriver();
  // First the stream: asking for it makes its device's context current for the events.
  const auto stream = static_cast<CUstream>(Stream::current().cuda_stream());
  CUevent start, stop;
  d->cuEventCreate(&start, 0);
  d->cuEventCreate(&stop, 0);
  synchronize();
  body();
  d->cuEventRecord(start, stream);
  const auto host_start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) body();
  if (host_seconds != nullptr) {
    const std::chrono::duration<double> host = std::chrono::steady_clock::now() - host_start;
    *host_seconds = host.count() / iterations;
  }
  d->cuEventRecord(stop, stream);
  d->cuEventSynchronize(stop);
  float ms = 0;
  d->cuEventElapsedTime(&ms, start, stop);
  d->cuEventDestroy(start);
  d->cuEventDestroy(stop);
  return ms / 1e3 / iterations;
}

// Times `body` as a manual-time benchmark: two untimed runs (compile, allocate, warm up), then
// `batch` runs a timing (GpuSeconds). Returns the seconds timed in all, for rates over
// state.iterations(). The counter host_us is the host's time to enqueue one run: where it
// comes near the GPU time, the GPU waits for the host between runs.
template <typename F>
double TimeRuns(benchmark::State& state, F&& body, int batch) {
  body();
  body();
  synchronize();
  double total = 0, host_total = 0;
  for (auto _ : state) {
    double host = 0;
    const double seconds = GpuSeconds(body, batch, &host);
    total += seconds;
    host_total += host;
    state.SetIterationTime(seconds);
  }
  state.counters["host_us"] = 1e6 * host_total / static_cast<double>(state.iterations());
  return total;
}

// The device-to-device copy bandwidth (bytes read + written, GB/s) of 1 GiB on tessel's
// stream, as a manual-time benchmark: the baseline the memory-bound figures are shares of.
inline double CopyGbps(benchmark::State& state) {
  constexpr int64_t kFloats = int64_t{1} << 28;
  Tensor a = zeros({kFloats}, DType::kF32, Device::kCUDA);
  Tensor b = ones({kFloats}, DType::kF32, Device::kCUDA);
  realize({a, b});
  const runtime::Driver* d = *runtime::GetDriver();
  auto pa = reinterpret_cast<CUdeviceptr>(a.node().buffer()->data());
  auto pb = reinterpret_cast<CUdeviceptr>(b.node().buffer()->data());
  const auto stream = static_cast<CUstream>(Stream::current().cuda_stream());
  double total = 0;
  for (auto _ : state) {
    const double t = GpuSeconds([&] { d->cuMemcpyDtoDAsync(pa, pb, kFloats * 4, stream); }, 10);
    total += t;
    state.SetIterationTime(t);
  }
  const double gbps = 2.0 * kFloats * 4 * static_cast<double>(state.iterations()) / total / 1e9;
  state.counters["GB/s"] = gbps;
  return gbps;
}

}  // namespace tessel::bench

#endif  // TESSEL_BENCH_GPU_TIMER_H_
