// Many programs, many processes: a range of seeds split over worker processes, each a fresh
// exec of this binary, so that a crash, a hang or a device fault ends one worker (and is
// reported with its seed) instead of the run. Seeds -> Outcomes -> a report.
#ifndef TESSEL_TOOLS_FUZZ_CAMPAIGN_H_
#define TESSEL_TOOLS_FUZZ_CAMPAIGN_H_

#include <cstdint>
#include <string>

#include "tools/fuzz/check.h"

namespace tessel::fuzz {

struct Campaign {
  // How each program is checked; with `twice`, only even seeds run a second time.
  CheckOptions check;
  uint64_t first_seed = 1;
  int64_t count = 100;
  int jobs = 1;
  int timeout_seconds = 600;  // without progress: the worker is killed, the seed is a hang
  // Past this many seconds no program starts; the report covers those that finished.
  double time_limit_seconds = 0;  // 0: none
  std::string self;               // this binary, for the workers
};

// Runs the campaign and prints every failure (seed, signature, program, detail), then a
// summary and the line "N passed, N failed". Returns the number of failures.
int64_t RunCampaign(const Campaign& c);

// The worker's side: checks seeds [first, first + count) in this process, printing one
// protocol line per event to stdout. Returns 3 when the device was lost (the caller restarts).
int RunWorker(const CheckOptions& check, uint64_t first, int64_t count);

}  // namespace tessel::fuzz

#endif  // TESSEL_TOOLS_FUZZ_CAMPAIGN_H_
