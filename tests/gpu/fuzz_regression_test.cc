// Every minimized program in tests/fuzz/regressions on the GPU against the CPU (the fuzzer's
// diff mode, twice: the second run with other values goes through the plan cache).
#include "gtest/gtest.h"
#include "tests/fuzz/regressions.h"
#include "tools/fuzz/check.h"

namespace tessel::fuzz {
namespace {

TEST(FuzzRegressionGpuTest, EveryProgramMatchesTheCpu) {
  const std::vector<RegressionProgram> programs = RegressionPrograms();
  ASSERT_GE(programs.size(), 12u) << "set TESSEL_FUZZ_REGRESSIONS to the regressions folder";
  for (const RegressionProgram& p : programs) {
    SCOPED_TRACE(p.name);
    CheckOptions options;
    options.mode = Mode::kDiff;
    options.twice = true;
    const Outcome o = CheckProgram(p.text, options);
    EXPECT_EQ(o.kind, Outcome::kPass) << o.signature << "\n" << o.detail;
  }
}

}  // namespace
}  // namespace tessel::fuzz
