// Long-running loops on the GPU: what a training step costs when its values change every
// step, and what a loop over batch sizes compiles. Counters from core/stats.h show reuse.
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/stats.h"
#include "tessel.h"

namespace tessel {
namespace {

bool NeedGpu(benchmark::State& state) {
  if (GetBackend(Device::kCUDA).ok()) return true;
  state.SkipWithError("no usable GPU");
  return false;
}

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

// 100 steps; arg 0: the same learning rate and seed every step, 1: new ones every step.
// Counters: plans built and modules loaded during steps 2..100 (0 when every kernel is
// reused) and milliseconds per step.
void BM_TrainingLoop(benchmark::State& state) {
  if (!NeedGpu(state)) return;
  const bool changing = state.range(0) != 0;
  const int64_t batch = 256, d = 1024, f = 4096;
  Mlp m = RandomMlp(d, f, 1);
  const Mlp grads = RandomMlp(d, f, 10);
  const Tensor x = randn({batch, d}, 20, DType::kBF16);
  realize({x});
  int64_t plans = 0, modules = 0, steps = 0;
  for (auto _ : state) {
    for (int step = 0; step < 100; ++step) {
      if (step == 1) {
        plans = GetStats().plans_built;
        modules = GetStats().modules_loaded;
      }
      const double lr = changing ? 0.01 / (1 + 0.01 * step) : 0.01;
      const uint64_t seed = changing ? 1000 + step : 1000;
      std::vector<Tensor> out = Step(m, grads, x, lr, seed);
      realize(out);
      m = Mlp{out[1], out[2], out[3], out[4]};
    }
    synchronize();
    steps += 100;
  }
  state.counters["plans_built_after_step_1"] = static_cast<double>(GetStats().plans_built - plans);
  state.counters["modules_loaded_after_step_1"] =
      static_cast<double>(GetStats().modules_loaded - modules);
  state.counters["ms_per_step"] = benchmark::Counter(
      static_cast<double>(steps) * 1e-3, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(changing ? "changing lr and seed" : "constant lr and seed");
}
BENCHMARK(BM_TrainingLoop)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// The MLP block's forward pass for every batch size 1..512 in turn. Counter: modules
// loaded per distinct kernel source would be 512 with one compile per shape.
void BM_BatchSizes(benchmark::State& state) {
  if (!NeedGpu(state)) return;
  const int64_t d = 1024, f = 4096;
  Mlp m = RandomMlp(d, f, 1);
  std::vector<Tensor> xs;
  for (int64_t b = 1; b <= 512; ++b) xs.push_back(randn({b, d}, 100 + b, DType::kBF16));
  realize(xs);
  const int64_t modules = GetStats().modules_loaded;
  for (auto _ : state) {
    for (const Tensor& x : xs) realize({matmul(gelu(matmul(x, m.w1) + m.b1), m.w2) + m.b2 + x});
    synchronize();
  }
  state.counters["modules_loaded"] = static_cast<double>(GetStats().modules_loaded - modules);
}
BENCHMARK(BM_BatchSizes)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace
}  // namespace tessel

BENCHMARK_MAIN();
