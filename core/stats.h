// Counters that tests and TESSEL_LOG read: how much work realize() did.
#ifndef TESSEL_CORE_STATS_H_
#define TESSEL_CORE_STATS_H_

#include <atomic>
#include <cstdint>

namespace tessel {

struct Stats {
  std::atomic<int64_t> nodes_evaluated{0};   // graph nodes a backend computed
  std::atomic<int64_t> kernels_launched{0};  // device kernel launches
  // The CUDA backend's caches: a loop that reuses its kernels builds no plans and loads no
  // modules after its first step.
  std::atomic<int64_t> plans_built{0};  // plan cache misses: planned and generated
  std::atomic<int64_t> plan_cache_hits{0};
  std::atomic<int64_t> modules_loaded{0};  // kernel modules loaded (compiled or from cache)
  // Plans of several launches captured as CUDA graphs, and executions replaying them.
  std::atomic<int64_t> graphs_captured{0};
  std::atomic<int64_t> graph_replays{0};  // graph launches, each capture's first run included
};

Stats& GetStats();

}  // namespace tessel

#endif  // TESSEL_CORE_STATS_H_
