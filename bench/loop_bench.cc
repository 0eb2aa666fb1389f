// Long-running loops on the GPU: what a training step costs when its values change every
// step, and what a loop over batch sizes compiles. Counters from core/stats.h show reuse.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "bench/gpu_timer.h"
#include "benchmark/benchmark.h"
#include "core/stats.h"
#include "tessel.h"

namespace tessel {
namespace {

struct Mlp {
  Tensor w1, b1, w2, b2;
  std::vector<Tensor*> params() { return {&w1, &b1, &w2, &b2}; }
};

Mlp RandomMlp(int64_t d, int64_t f, uint64_t seed) {
  Mlp m{randn({d, f}, seed, DType::kBF16) * 0.02, randn({f}, seed + 1, DType::kBF16) * 0.02,
        randn({f, d}, seed + 2, DType::kBF16) * 0.02, randn({d}, seed + 3, DType::kBF16) * 0.02};
  realize({m.w1, m.b1, m.w2, m.b2});
  return m;
}

// One step: the forward pass with dropout (seed) on the hidden activations, and SGD updates
// with fixed stand-in gradients at learning rate `lr`.
std::vector<Tensor> Step(Mlp& m, const Mlp& grads, const Tensor& x, double lr, uint64_t seed) {
  const Tensor h = gelu(matmul(x, m.w1) + m.b1);
  const Tensor keep = lt(rand(h.shape(), seed, DType::kBF16), full({}, 0.9, DType::kBF16));
  const Tensor y = matmul(where(keep, h / 0.9, zeros(h.shape(), DType::kBF16)), m.w2) + m.b2;
  std::vector<Tensor> out = {y};
  const std::vector<Tensor*> p = m.params();
  const std::vector<const Tensor*> g = {&grads.w1, &grads.b1, &grads.w2, &grads.b2};
  for (size_t i = 0; i < p.size(); ++i) out.push_back(*p[i] - lr * *g[i]);
  return out;
}

// 100 steps; arg 0: the same learning rate and seed every step, 1: new ones every step. A
// first untimed 100 steps compile. Counters: plans built and modules loaded in the timed
// steps (0 when every kernel is reused) and milliseconds per step.
void BM_TrainingLoop(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const bool changing = state.range(0) != 0;
  const int64_t batch = 256, d = 1024, f = 4096;
  Mlp m = RandomMlp(d, f, 1);
  const Mlp grads = RandomMlp(d, f, 10);
  const Tensor x = randn({batch, d}, 20, DType::kBF16);
  realize({x});
  int64_t step = 0;
  auto run_steps = [&] {
    for (int i = 0; i < 100; ++i, ++step) {
      const double lr = changing ? 0.01 / (1 + 0.01 * step) : 0.01;
      const uint64_t seed = changing ? 1000 + step : 1000;
      std::vector<Tensor> out = Step(m, grads, x, lr, seed);
      realize(out);
      m = Mlp{out[1], out[2], out[3], out[4]};
    }
    synchronize();
  };
  run_steps();  // compiles
  const int64_t plans = GetStats().plans_built, modules = GetStats().modules_loaded;
  double seconds = 0;
  int64_t timed = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    run_steps();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    timed += 100;
  }
  state.counters["plans_built"] = static_cast<double>(GetStats().plans_built - plans);
  state.counters["modules_loaded"] = static_cast<double>(GetStats().modules_loaded - modules);
  state.counters["ms_per_step"] = 1e3 * seconds / static_cast<double>(timed);
  state.SetLabel(changing ? "changing lr and seed" : "constant lr and seed");
}
BENCHMARK(BM_TrainingLoop)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// The MLP block, y = matmul(gelu(matmul(x, w1) + b1), w2) + b2 + x, bf16.
Tensor MlpBlock(const Mlp& m, const Tensor& x) {
  return matmul(gelu(matmul(x, m.w1) + m.b1), m.w2) + m.b2 + x;
}

// The block for every batch size 1..512 in turn (a first untimed pass compiles). Counters:
// plans built and modules loaded in that first pass (one per shape would be 512 and more),
// and microseconds per batch size in the timed passes.
void BM_BatchSizes(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  Mlp m = RandomMlp(1024, 4096, 1);
  std::vector<Tensor> xs;
  for (int64_t b = 1; b <= 512; ++b) {  // one at a time: one launch of 512 would be one kernel
    xs.push_back(randn({b, 1024}, 100 + b, DType::kBF16));
    realize({xs.back()});
  }
  const int64_t plans = GetStats().plans_built, modules = GetStats().modules_loaded;
  auto pass = [&] {
    for (const Tensor& x : xs) realize({MlpBlock(m, x)});
    synchronize();
  };
  pass();
  state.counters["plans_built"] = static_cast<double>(GetStats().plans_built - plans);
  state.counters["modules_loaded"] = static_cast<double>(GetStats().modules_loaded - modules);
  for (auto _ : state) pass();
  state.counters["us_per_size"] = benchmark::Counter(
      512e-6, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_BatchSizes)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// A training step written by hand (the MLP block's forward pass, the loss's gradient, the
// backward pass and SGD updates, bf16) at each batch size 33..40 in turn, one pass, from an
// empty kernel cache when TESSEL_CACHE_DIR names a fresh directory: what a loop whose batch
// changes every step spends compiling. Counters: plans built, modules loaded, seconds.
void BM_TrainingBatchSizes(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  Mlp m = RandomMlp(1024, 4096, 1);
  auto step = [&](int64_t b) {
    const Tensor x = randn({b, 1024}, 100 + b, DType::kBF16),
                 t = randn({b, 1024}, 200 + b, DType::kBF16);
    const Tensor a = matmul(x, m.w1) + m.b1, h = gelu(a), y = matmul(h, m.w2) + m.b2;
    const Tensor dy = (y - t) * (2.0 / static_cast<double>(b * 1024));
    const Tensor s = sigmoid(a * 1.702), dh = matmul(dy, transpose(m.w2));
    const Tensor da = dh * (s + a * 1.702 * s * (1.0 - s));
    return std::vector<Tensor>{mean((y - t) * (y - t)), m.w1 - 0.01 * matmul(transpose(x), da),
                               m.b1 - 0.01 * sum(da, {0}), m.w2 - 0.01 * matmul(transpose(h), dy),
                               m.b2 - 0.01 * sum(dy, {0})};
  };
  const int64_t plans = GetStats().plans_built, modules = GetStats().modules_loaded;
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (int64_t b = 33; b <= 40; ++b) realize(step(b));
    synchronize();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.counters["plans_built"] = static_cast<double>(GetStats().plans_built - plans);
  state.counters["modules_loaded"] = static_cast<double>(GetStats().modules_loaded - modules);
  state.counters["s_per_pass"] = seconds / static_cast<double>(state.iterations());
}
BENCHMARK(BM_TrainingBatchSizes)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// The block at batch B (arg 0) with kernels that take the batch as an argument (arg 1 = 1:
// its family has run at another batch first) or specialized to B (0: TESSEL_DYNAMIC=0), GPU
// time per block.
void BM_MlpBlockAtBatch(benchmark::State& state) {
  if (!bench::NeedGpu(state)) return;
  const int64_t b = state.range(0);
  const bool dynamic = state.range(1) != 0;
  if (!dynamic) setenv("TESSEL_DYNAMIC", "0", 1);
  Mlp m = RandomMlp(1024, 4096, 1);
  const Tensor x = randn({b, 1024}, 7, DType::kBF16), other = randn({3, 1024}, 8, DType::kBF16);
  realize({x, other});
  if (dynamic) realize({MlpBlock(m, other)});  // the family's first program, at batch 3
  realize({MlpBlock(m, x)});                   // compiles
  synchronize();
  double total = 0;
  for (auto _ : state) {
    const double t = bench::GpuSeconds([&] { realize({MlpBlock(m, x)}); }, 20);
    total += t;
    state.SetIterationTime(t);
  }
  unsetenv("TESSEL_DYNAMIC");
  state.counters["TFLOP/s"] =
      4.0 * b * 1024 * 4096 * static_cast<double>(state.iterations()) / total / 1e12;
  state.SetLabel(dynamic ? "batch as an argument" : "specialized");
}
BENCHMARK(BM_MlpBlockAtBatch)
    ->ArgsProduct({{64, 200, 512, 4096}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace tessel

BENCHMARK_MAIN();
