// Long-running programs on the GPU: a loop whose values change every step reuses its kernels
// and matches the CPU backend at every step.
#include "core/stats.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/gpu/gpu_compare.h"

namespace tessel {
namespace {

using testing::Compare;
using testing::Data;
using testing::GpuTest;

struct CacheCounters {
  int64_t plans_built, modules_loaded, plan_cache_hits;
};
CacheCounters Counters() {
  return {GetStats().plans_built.load(), GetStats().modules_loaded.load(),
          GetStats().plan_cache_hits.load()};
}

// An SGD step with dropout (a new seed each step) and a layer norm whose eps changes.
std::vector<Tensor> Step(int step, Device d) {
  const Tensor p = Data({256, 1000}, 1, DType::kF32, d), g = Data({256, 1000}, 2, DType::kF32, d);
  const Tensor w = Data({1000}, 3, DType::kF32, d), b = Data({1000}, 4, DType::kF32, d);
  const double lr = 0.1 / (step + 1), eps = 1e-5 * (step + 1);
  const Tensor keep =
      lt(rand({256, 1000}, 100 + step, DType::kF32, d), full({}, 0.9, DType::kF32, d));
  const Tensor dropped = where(keep, g / 0.9, zeros({256, 1000}, DType::kF32, d));
  return {p - lr * dropped, layer_norm(p, w, b, eps) * (1.0 + step)};
}

TEST_F(GpuTest, ChangedValuesAndSeedsReuseEveryKernel) {
  Compare([](Device d) { return Step(0, d); }, 1e-4, 1e-4);
  const CacheCounters first = Counters();
  for (int step = 1; step < 6; ++step) {
    SCOPED_TRACE(::testing::Message() << "step " << step);
    Compare([step](Device d) { return Step(step, d); }, 1e-4, 1e-4);
  }
  const CacheCounters later = Counters();
  EXPECT_EQ(later.plans_built, first.plans_built);
  EXPECT_EQ(later.modules_loaded, first.modules_loaded);
  EXPECT_GE(later.plan_cache_hits, first.plan_cache_hits + 5);
}

}  // namespace
}  // namespace tessel
