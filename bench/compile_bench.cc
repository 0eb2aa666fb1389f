// Compile latency (issue 3): a pointwise kernel compiled cold with NVRTC, and the same kernel
// loaded from the on-disk cache. Runs without a GPU (NVRTC needs none).
//
//   CUDA_CACHE_DISABLE=1 bazel run //bench:compile_bench
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "runtime/kernel_cache.h"
#include "tessel.h"

namespace tessel {
namespace {

// The benchmark chain's kernel, made distinct per call (a constant varies) so that no cache
// of any kind can serve it.
std::string ChainSource(int variant) {
  Tensor x = from_vector(std::vector<float>(1024), {1024}, DType::kF32, Device::kCPU);
  Tensor y = gelu(x * 1.5 + 0.25 + variant) * sigmoid(x) + x;
  return inspect({y}).at(0).source;
}

std::string TempDir() {
  static std::atomic<int> n{0};
  return absl::StrCat(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp", "/tessel-bench-",
                      getpid(), "-", n++);
}

const Target kTarget{9, 0, true};

void BM_ColdCompilePointwise(benchmark::State& state) {
  int variant = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const std::string source = ChainSource(variant++);
    runtime::KernelCache cache(TempDir());
    state.ResumeTiming();
    auto out = cache.GetOrCompile(runtime::CompileUnit{"chain", source, {}, 0}, kTarget);
    if (!out.ok()) state.SkipWithError(std::string(out.status().message()).c_str());
  }
}
BENCHMARK(BM_ColdCompilePointwise)->Unit(benchmark::kMillisecond)->Iterations(20);

void BM_DiskCacheLoad(benchmark::State& state) {
  const std::string source = ChainSource(0), dir = TempDir();
  {
    auto warm = runtime::KernelCache(dir).GetOrCompile(runtime::CompileUnit{"chain", source, {}, 0},
                                                       kTarget);
  }
  for (auto _ : state) {
    runtime::KernelCache cache(dir);  // a fresh process's view: memory empty, disk warm
    auto out = cache.GetOrCompile(runtime::CompileUnit{"chain", source, {}, 0}, kTarget);
    if (!out.ok() || cache.stats().disk_hits != 1) state.SkipWithError("not a disk hit");
  }
}
BENCHMARK(BM_DiskCacheLoad)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tessel

BENCHMARK_MAIN();
