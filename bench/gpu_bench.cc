// GPU benchmarks for fused memory-bound graphs (issues 3 and 12). Each reports GB/s counting the
// bytes the graph must move (inputs read once, outputs written once), its percentage of a
// device-to-device copy measured in this binary, and how many kernels one realize launched.
// Argument 1 runs the graph fused, 0 unfused (TESSEL_FUSION=0: one kernel per operation).
//
//   tools/gpu_bundle.sh, then on the GPU machine: dist/gpu_bench
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/gpu_timer.h"
#include "benchmark/benchmark.h"
#include "core/stats.h"
#include "tessel.h"

namespace tessel {
namespace {

double g_copy_gbps = 0;  // measured by BM_Copy, which is registered first

template <typename F>
void Measure(benchmark::State& state, double bytes, F&& body) {
  const bool fused = state.range(0) != 0;
  if (!fused) setenv("TESSEL_FUSION", "0", 1);
  body();  // compile, allocate
  synchronize();
  const int64_t before = GetStats().kernels_launched;
  body();
  synchronize();
  const double kernels = static_cast<double>(GetStats().kernels_launched - before);
  const double total = bench::TimeRuns(state, body, 10);  // also host_us
  unsetenv("TESSEL_FUSION");
  const double gbps = bytes * static_cast<double>(state.iterations()) / total / 1e9;
  state.counters["GB/s"] = gbps;
  if (g_copy_gbps > 0) state.counters["%copy"] = 100 * gbps / g_copy_gbps;
  state.counters["kernels"] = kernels;
  state.SetLabel(fused ? "fused" : "unfused");
}

constexpr int64_t kBig = int64_t{1} << 28;

// Baseline: a device-to-device copy (bench::CopyGbps).
void BM_Copy(benchmark::State& state) {
  if (bench::NeedGpu(state)) g_copy_gbps = bench::CopyGbps(state);
}
BENCHMARK(BM_Copy)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_PointwiseChain(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  Tensor x = randn({kBig}, 1, DType::kF32);
  realize({x});
  Measure(state, 2.0 * kBig * 4, [&] { realize({gelu(x * 1.5 + 0.25) * sigmoid(x) + x}); });
}
BENCHMARK(BM_PointwiseChain)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_Softmax(benchmark::State& state, DType dtype) {
  if (!bench::NeedGpu(state)) return;
  Tensor x = randn({16384, 8192}, 1, dtype);
  realize({x});
  Measure(state, 2.0 * x.numel() * DTypeSize(dtype), [&] { realize({softmax(x)}); });
}
BENCHMARK_CAPTURE(BM_Softmax, bf16, DType::kBF16)
    ->Arg(1)
    ->Arg(0)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Softmax, f32, DType::kF32)
    ->Arg(1)
    ->Arg(0)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_LayerNorm(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  Tensor x = randn({16384, 8192}, 1, DType::kBF16);
  Tensor w = randn({8192}, 2, DType::kBF16), b = randn({8192}, 3, DType::kBF16);
  realize({x, w, b});
  Measure(state, 2.0 * x.numel() * 2, [&] { realize({layer_norm(x, w, b)}); });
}
BENCHMARK(BM_LayerNorm)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_ThreeReductions(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  Tensor x = randn({kBig}, 1, DType::kF32);
  realize({x});
  Measure(state, 1.0 * kBig * 4, [&] { realize({sum(x), sum(x * x), max(x)}); });
}
BENCHMARK(BM_ThreeReductions)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);

// Reductions by axis (issue 13), f32: 1 sum(x, {0}) of [16384, 8192] (columns), 2 mean(x, {1})
// of [64, 512, 4096] (a middle axis), 3 sum(x, {1}) of [16384, 8192] (rows, for reference);
// 4-6 the same in bf16.
void BM_ReduceAxis(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t which = (state.range(0) - 1) % 3 + 1;
  const DType dtype = state.range(0) > 3 ? DType::kBF16 : DType::kF32;
  Tensor x = which == 2 ? randn({64, 512, 4096}, 1, dtype) : randn({16384, 8192}, 1, dtype);
  realize({x});
  Measure(state, DTypeSize(dtype) * static_cast<double>(x.numel()), [&] {
    realize({which == 1 ? sum(x, {0}) : which == 2 ? mean(x, {1}) : sum(x, {1})});
  });
}
BENCHMARK(BM_ReduceAxis)->DenseRange(1, 6)->UseManualTime()->Unit(benchmark::kMillisecond);

// Softmax over each axis (issue 13), f32: 1-3 over axis 0, 1, 2 of [256, 512, 512] (axes 0
// and 1 hold columns on chip, 2 is rows); 4 over axis 0 of [16384, 8192] (columns of 16384,
// held by clusters on sm_90); 5-6 over axis 0 and 1 of [256, 512, 512] bf16; 7 over axis 0
// of [16384, 8192] bf16.
void BM_SoftmaxAxis(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t which = state.range(0);
  const DType dtype = which >= 5 ? DType::kBF16 : DType::kF32;
  const bool long_columns = which == 4 || which == 7;
  Tensor x = long_columns ? randn({16384, 8192}, 1, dtype) : randn({256, 512, 512}, 1, dtype);
  realize({x});
  const int axis = long_columns ? 0 : static_cast<int>((which - 1) % 4);
  Measure(state, 2.0 * DTypeSize(dtype) * static_cast<double>(x.numel()),
          [&] { realize({softmax(x, axis)}); });
}
BENCHMARK(BM_SoftmaxAxis)->DenseRange(1, 7)->UseManualTime()->Unit(benchmark::kMillisecond);

// Transposed and permuted writes (issue 13), f32, bytes read + written: 1 transpose(x) + 1
// of [16384, 8192]; 2-5 a permute of [64, 256, 32, 128] times 2, by {0, 2, 1, 3} (the
// contiguous axis kept), {0, 1, 3, 2}, {0, 3, 1, 2} and {3, 2, 1, 0}; 6-10 the same in bf16.
void BM_Transpose(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t which = (state.range(0) - 1) % 5 + 1;
  const DType dtype = state.range(0) > 5 ? DType::kBF16 : DType::kF32;
  const std::vector<std::vector<int>> perms = {
      {0, 2, 1, 3}, {0, 1, 3, 2}, {0, 3, 1, 2}, {3, 2, 1, 0}};
  Tensor x = which == 1 ? randn({16384, 8192}, 1, dtype) : randn({64, 256, 32, 128}, 1, dtype);
  realize({x});
  Measure(state, 2.0 * DTypeSize(dtype) * static_cast<double>(x.numel()),
          [&] { realize({which == 1 ? transpose(x) + 1.0 : permute(x, perms[which - 2]) * 2.0}); });
}
BENCHMARK(BM_Transpose)->DenseRange(1, 10)->UseManualTime()->Unit(benchmark::kMillisecond);

// 64 parameters and their gradients, sizes 4K to 4M elements (geometric), realized.
struct Updates {
  std::vector<Tensor> p, g;
  double elements = 0;
};
Updates MakeUpdates() {
  Updates u;
  for (int i = 0; i < 64; ++i) {
    const int64_t n = int64_t{4096} << (i * 10 / 63);
    u.p.push_back(randn({n}, i, DType::kF32));
    u.g.push_back(randn({n}, 100 + i, DType::kF32));
    u.elements += static_cast<double>(n);
  }
  realize(u.p);
  realize(u.g);
  return u;
}
// The 64 updates p - 0.01 g, realized together.
void RealizeUpdates(const Updates& u) {
  std::vector<Tensor> out;
  for (int i = 0; i < 64; ++i) out.push_back(u.p[i] - 0.01 * u.g[i]);
  realize(out);
}

void BM_SixtyFourUpdates(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const Updates u = MakeUpdates();
  Measure(state, u.elements * 12, [&] { RealizeUpdates(u); });
}
BENCHMARK(BM_SixtyFourUpdates)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);

// argmax over rows (issue 12): the max, a comparison and a min over positions, one fused
// reduction reading the rows once.
void BM_Argmax(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  Tensor x = randn({16384, 8192}, 1, DType::kBF16);
  realize({x});
  Measure(state, x.numel() * 2.0 + 16384 * 8.0, [&] { realize({argmax(x, 1)}); });
}
BENCHMARK(BM_Argmax)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);

// Cross-entropy over a 32000-class vocabulary as user code writes it (issue 12): logsumexp
// minus the target's logit, picked by comparing positions with the target (arg 1) or by a
// gather (arg 2); arg 0 unfused. One read of the rows: the max and the sum of exponentials
// accumulate online in one streaming kernel, then the mean.
void BM_CrossEntropy(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  constexpr int64_t kRows = 4096, kVocab = 32000;
  Tensor logits = randn({kRows, kVocab}, 1, DType::kBF16);
  std::vector<int64_t> ids(kRows);
  for (int64_t i = 0; i < kRows; ++i) ids[i] = (i * 7919) % kVocab;
  Tensor targets = from_vector(ids, {kRows, 1}, DType::kI64);
  realize({logits, targets});
  const Tensor classes = arange(kVocab, DType::kI64);
  Measure(state, kRows * kVocab * 2.0 + kRows * 8.0, [&] {
    const Tensor picked = state.range(0) == 2
                              ? gather(logits, 1, targets)
                              : sum(where(eq(classes, targets), logits, 0.0), {1}, true);
    realize({mean(logsumexp(logits, {1}, true) - picked)});
  });
}
BENCHMARK(BM_CrossEntropy)->Arg(1)->Arg(2)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);

// An embedding lookup with its pointwise epilogue (issue 12): rows of a 32000 x 4096 bf16
// table for 8 x 2048 tokens, scaled, plus positions: one kernel reading each looked-up row,
// the positions and the ids once and writing the result (bytes: 3 x 8 x 2048 x 4096 x 2).
void BM_Embedding(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  constexpr int64_t kTokens = 2048, kBatch = 8, kWidth = 4096, kVocab = 32000;
  Tensor table = randn({kVocab, kWidth}, 1, DType::kBF16);
  Tensor positions = randn({kTokens, kWidth}, 2, DType::kBF16);
  std::vector<int64_t> ids(kBatch * kTokens);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i * 7919 % kVocab);
  Tensor tokens = from_vector(ids, {kBatch, kTokens}, DType::kI64);
  realize({table, positions, tokens});
  const double bytes = 3.0 * kBatch * kTokens * kWidth * 2 + kBatch * kTokens * 8.0;
  Measure(state, bytes, [&] { realize({embedding(table, tokens) * 64.0 + positions}); });
}
BENCHMARK(BM_Embedding)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);

// cumsum of f32 (issue 12's target: 2^28 elements at >= 80% of copy): arg 2 one line of
// 2^28, arg 1 16384 lines of 16384 (a block per line), arg 0 the same unfused.
void BM_Cumsum(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const bool one_line = state.range(0) == 2;
  Tensor x = randn(one_line ? Shape{int64_t{1} << 28} : Shape{16384, 16384}, 1, DType::kF32);
  realize({x});
  Measure(state, x.numel() * 8.0, [&] { realize({cumsum(x, -1)}); });
}
BENCHMARK(BM_Cumsum)->Arg(2)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);

// top-k over long rows (issue 12's target: k = 50 over rows of 128K at >= 50% of the
// row-read roofline, here the copy bandwidth): 256 rows of 131072 f32, values and indices.
// Three kernels: each block selects the top 50 of a 4096-element part, one block per row
// selects from the parts' runs, and the values are gathered at the positions.
void BM_TopK(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  constexpr int64_t kRows = 256, kRow = 131072, kK = 50;
  Tensor x = randn({kRows, kRow}, 1, DType::kF32);
  realize({x});
  Measure(state, kRows * kRow * 4.0 + kRows * kK * 12.0, [&] {
    const auto [values, indices] = topk(x, kK);
    realize({values, indices});
  });
}
BENCHMARK(BM_TopK)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// A full sort of rows a block holds: 16384 rows of 4096 f32, values and indices.
void BM_SortRows(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  Tensor x = randn({16384, 4096}, 1, DType::kF32);
  realize({x});
  Measure(state, x.numel() * (4.0 + 12.0), [&] {
    const auto [values, indices] = sort(x, 1);
    realize({values, indices});
  });
}
BENCHMARK(BM_SortRows)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// softmax over rows longer than a block stages (issue 13's long rows): 64 x 131072 bf16, one
// kernel (a cluster of blocks a row, the row held in registers). Its 32 MB moved take a few
// microseconds, so that a kernel's fixed cost weighs: BM_LongRowsNegate moves the same bytes
// through a pointwise kernel, the roofline at this size.
template <typename F>
void LongRows(benchmark::State& state, F&& graph) {
  if (!bench::NeedGpu(state)) return;
  Tensor x = randn({64, 131072}, 1, DType::kBF16);
  realize({x});
  Measure(state, x.numel() * 4.0, [&] { realize({graph(x)}); });
}
void BM_LongSoftmax(benchmark::State& state) {
  LongRows(state, [](const Tensor& x) { return softmax(x, -1); });
}
BENCHMARK(BM_LongSoftmax)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_LongRowsNegate(benchmark::State& state) {
  LongRows(state, [](const Tensor& x) { return -x; });
}
BENCHMARK(BM_LongRowsNegate)->Arg(1)->UseManualTime()->Unit(benchmark::kMillisecond);

// Softmax over rows of each length, 2^25 values (the last argument: 16 bf16, 64 MB read and
// 64 MB written; 32 f32): where the row schedules change (a block's registers, a cluster,
// shared memory), at a size whose fixed costs weigh little (issue 13: 32000- and 131072-wide
// softmax).
void BM_SoftmaxRowLength(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const DType dtype = state.range(2) == 16 ? DType::kBF16 : DType::kF32;
  const int64_t length = state.range(1);
  Tensor x = randn({(int64_t{1} << 25) / length, length}, 1, dtype);
  realize({x});
  Measure(state, x.numel() * 2.0 * DTypeSize(dtype), [&] { realize({softmax(x, -1)}); });
}
BENCHMARK(BM_SoftmaxRowLength)
    ->ArgsProduct({{1}, {4096, 16384, 24576, 32000, 32768, 65536, 131072, 262144}, {16, 32}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// The 10-op chain of the host-cost benchmarks.
Tensor TenOpChain(const Tensor& x) {
  Tensor t = relu(tanh(x * 1.5 + 0.25) * x - 0.5);
  return t / (abs(x) + 1.0) * 2.0;
}

// Host time of `body` (record and realize, not waited for), warm caches; every
// `sync_every` runs the launch queue is drained off the clock.
template <typename Body>
void HostTime(benchmark::State& state, Body body, int sync_every) {
  body();
  int64_t n = 0;
  for (auto _ : state) {
    body();
    if (++n % sync_every == 0) {
      state.PauseTiming();
      synchronize();
      state.ResumeTiming();
    }
  }
  synchronize();
}

// Host cost of recording and realizing a 10-op chain on 1K elements.
void BM_HostRecordRealize10Ops(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  Tensor x = randn({1024}, 1, DType::kF32);
  realize({x});
  HostTime(
      state, [&] { realize({TenOpChain(x)}); }, 256);
}
BENCHMARK(BM_HostRecordRealize10Ops)->Unit(benchmark::kMicrosecond);

// Host cost of the 64 updates of BM_SixtyFourUpdates (192 operations, 128 leaves, one
// launch): where it exceeds the GPU's time for them, the GPU waits.
void BM_HostSixtyFourUpdates(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const Updates u = MakeUpdates();
  HostTime(
      state, [&] { RealizeUpdates(u); }, 16);
}
BENCHMARK(BM_HostSixtyFourUpdates)->Unit(benchmark::kMicrosecond);

// The same chain waited for each time: the wall time of one step of a loop that reads its
// result (host work, launch latency and the kernel, nothing overlapped).
void BM_HostRecordRealizeSync10Ops(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  Tensor x = randn({1024}, 1, DType::kF32);
  realize({x});
  auto body = [&] {
    realize({TenOpChain(x)});
    synchronize();
  };
  body();
  for (auto _ : state) body();
}
BENCHMARK(BM_HostRecordRealizeSync10Ops)->Unit(benchmark::kMicrosecond)->UseRealTime();

// A plan of six small launches (top-k 8 of 4 rows of 65536: a threshold's three, the parts'
// two, the values' gather) in a loop: argument 1 replays it as a CUDA graph once its
// launches repeat, 0 issues each launch (TESSEL_CUDA_GRAPHS=0). Host time per step, and the
// wall time of a step waited for.
void SmallPlanLoop(benchmark::State& state, bool wait) {
  if (!bench::NeedGpu(state)) return;
  const bool graphs = state.range(0) != 0;
  // The argument, not the caller's TESSEL_CUDA_GRAPHS, decides; the caller's is put back.
  const char* caller = std::getenv("TESSEL_CUDA_GRAPHS");
  const bool had = caller != nullptr;
  const std::string saved = had ? caller : "";
  setenv("TESSEL_CUDA_GRAPHS", graphs ? "1" : "0", 1);
  Tensor x = randn({4, 65536}, 1, DType::kF32);
  realize({x});
  const int64_t replays = GetStats().graph_replays;
  auto step = [&] { realize({topk(x, 8).first}); };
  if (wait) {
    for (int i = 0; i < 3; ++i) step();
    for (auto _ : state) {
      step();
      synchronize();
    }
  } else {
    HostTime(state, step, 64);
  }
  state.counters["replays"] = static_cast<double>(GetStats().graph_replays - replays);
  state.SetLabel(graphs ? "graphs" : "launches");
  if (!had) {
    unsetenv("TESSEL_CUDA_GRAPHS");
  } else {
    setenv("TESSEL_CUDA_GRAPHS", saved.c_str(), 1);
  }
}
void BM_HostSmallPlan(benchmark::State& state) { SmallPlanLoop(state, false); }
void BM_SmallPlanStep(benchmark::State& state) { SmallPlanLoop(state, true); }
BENCHMARK(BM_HostSmallPlan)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SmallPlanStep)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace tessel

BENCHMARK_MAIN();
