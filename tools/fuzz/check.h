// Runs one fuzz program in one mode and says how it went. Program text -> Outcome.
//
//   plan: no GPU. Replays on the CPU (realizes included), plans every output set as the CUDA
//         backend would, compiles every kernel with NVRTC for sm_90a and sm_80, and
//         realizes the outputs on the CPU backend; then, where the CUDA backend loads (the
//         fake driver, tools/fake_cuda), replays through it, and with `twice` again at the
//         other leading extents diff mode takes: no values compared, launches checked.
//   diff: on a GPU. Realizes on CUDA and on the CPU and compares (compare.h), and twice more
//         on CUDA with the same data, which must give the same bits (the plan cache and,
//         where buffers come round again, CUDA graph replays serve those); with `twice`,
//         does it again with other input values, scalars and seeds, on another stream, so
//         that the second CUDA run goes through the plan cache with new arguments, and at two
//         other leading extents of one power-of-two bucket, so that kernels take the extent
//         as an argument and a plan runs at an extent it was not made at.
#ifndef TESSEL_TOOLS_FUZZ_CHECK_H_
#define TESSEL_TOOLS_FUZZ_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "tools/fuzz/generator.h"

namespace tessel::fuzz {

enum class Mode { kPlan, kDiff };

struct CheckOptions {
  Mode mode = Mode::kPlan;
  uint64_t data_seed = 1;
  bool twice = false;
  // diff: the backend under test. Device::kCPU checks the CPU's mid-program realizes, or with
  // `simulate` > 0 the checker itself (see sensitivity.h).
  Device device = Device::kCUDA;
  double simulate = 0;
  // Rows longer than this stream (TESSEL_STAGED_ROW, which main sets; 0: the planner's own).
  int64_t staged_row = 0;
};

// The programs a campaign of these options generates (one-hot picks where rows stream at small
// sizes).
GeneratorOptions GeneratorFor(const CheckOptions& options);

struct Outcome {
  enum Kind { kPass, kInvalid, kFail };
  Kind kind = kPass;
  // For failures: where it failed and the first line of the message with numbers blanked
  // out ("plan: tessel internal error at codegen/expr_emitter.cc:#: ..."). The minimizer
  // keeps a program only while its signature stays the same.
  std::string signature;
  std::string detail;  // the whole message, or the mismatch
  // The GPU is unusable after this program (a fault): the process must not go on.
  bool device_lost = false;
  int64_t compared = 0, fragile = 0;  // diff mode: elements checked and left out
};

Outcome CheckProgram(absl::string_view text, const CheckOptions& options);

// The command-line flags that give `options` to another process of the fuzzer (the data seed
// excepted): --mode, --twice, --device, --simulate.
std::vector<std::string> CheckFlags(const CheckOptions& options);

// "stage: first line, digits as #": the part of a failure the minimizer preserves.
std::string Signature(absl::string_view stage, absl::string_view message);

}  // namespace tessel::fuzz

#endif  // TESSEL_TOOLS_FUZZ_CHECK_H_
