// Memory of a process that runs many distinct graphs: each graph i is a small pointwise
// chain over [4, 64 + i] (a shape of its own, so a plan and a kernel of its own). Prints the
// resident set every 1,000 graphs; with bounded caches it stays flat once they are full.
//   cache_growth [first=0] [count=10000]
// Run several over disjoint ranges first to fill the disk cache, so that the measured run
// loads kernels instead of compiling them.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "core/stats.h"
#include "tessel.h"

namespace {

double ResidentMegabytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * sysconf(_SC_PAGESIZE) / (1 << 20);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessel;
  const int64_t first = argc > 1 ? std::atoll(argv[1]) : 0;
  const int64_t count = argc > 2 ? std::atoll(argv[2]) : 10000;
  for (int64_t i = first; i < first + count; ++i) {
    const Tensor x = full({4, 64 + i}, 0.5, DType::kF32);
    const std::vector<float> v = (tanh(x * 3.0) + x).to_vector<float>();
    if (v.empty()) return 1;
    if ((i - first + 1) % 1000 == 0) {
      std::printf("%lld graphs: resident %.1f MB, plans built %lld, modules loaded %lld\n",
                  static_cast<long long>(i - first + 1), ResidentMegabytes(),
                  static_cast<long long>(GetStats().plans_built.load()),
                  static_cast<long long>(GetStats().modules_loaded.load()));
      std::fflush(stdout);
    }
  }
  return 0;
}
