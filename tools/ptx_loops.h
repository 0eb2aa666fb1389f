// Finds loops that no path leaves in PTX, the compiler's output for a kernel. Such a loop runs
// until it faults or hangs the GPU; NVRTC 13.0 made one of a scan's loop (fuzz seed 42008079),
// which only a GPU showed. Checking the PTX finds that class on machines without a GPU: the
// fuzzer's plan mode and the codegen tests run it over every kernel they compile.
#ifndef TESSEL_TOOLS_PTX_LOOPS_H_
#define TESSEL_TOOLS_PTX_LOOPS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace tessel::tools {

// The functions (.entry and .func) of `ptx` with an instruction that their start reaches and
// from which no path reaches a ret, exit or trap, nor the end of the body. Branches through a
// table (brx.idx) count as leaving.
std::vector<std::string> FunctionsWithEndlessLoops(absl::string_view ptx);

}  // namespace tessel::tools

#endif  // TESSEL_TOOLS_PTX_LOOPS_H_
