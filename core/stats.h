// Counters that tests and TESSEL_LOG read: how much work realize() did.
#ifndef TESSEL_CORE_STATS_H_
#define TESSEL_CORE_STATS_H_

#include <atomic>
#include <cstdint>

namespace tessel {

struct Stats {
  std::atomic<int64_t> nodes_evaluated{0};   // graph nodes a backend computed
  std::atomic<int64_t> kernels_launched{0};  // device kernel launches
};

Stats& GetStats();

}  // namespace tessel

#endif  // TESSEL_CORE_STATS_H_
