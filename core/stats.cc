#include "core/stats.h"

namespace tessel {

Stats& GetStats() {
  static Stats* stats = new Stats();
  return *stats;
}

}  // namespace tessel
