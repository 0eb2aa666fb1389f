// Every minimized program in tests/fuzz/regressions: planned and compiled for sm_90a and
// sm_80 and run through the CUDA backend on the driver that runs no kernels, which refuses
// the launches the real one refuses (the fuzzer's plan mode), and realized on the CPU with its
// mid-program realizes against the CPU without them (diff mode with the CPU as the device).
#include "core/backend.h"
#include "gtest/gtest.h"
#include "tests/fuzz/regressions.h"
#include "tools/fuzz/check.h"

namespace tessel::fuzz {
namespace {

// Else plan mode skips the launches (tests/fuzz/BUILD puts tools/fake_cuda on the path).
TEST(FuzzRegressionTest, TheCudaBackendLoadsOnTheFakeDriver) {
  EXPECT_TRUE(GetBackend(Device::kCUDA).ok()) << GetBackend(Device::kCUDA).status();
}

TEST(FuzzRegressionTest, EveryProgramPlansCompilesAndRunsOnTheCpu) {
  const std::vector<RegressionProgram> programs = RegressionPrograms();
  ASSERT_GE(programs.size(), 12u);
  for (const RegressionProgram& p : programs) {
    SCOPED_TRACE(p.name);
    CheckOptions plan;
    plan.mode = Mode::kPlan;
    const Outcome planned = CheckProgram(p.text, plan);
    EXPECT_EQ(planned.kind, Outcome::kPass) << planned.signature << "\n" << planned.detail;
    CheckOptions diff;
    diff.mode = Mode::kDiff;
    diff.device = Device::kCPU;
    diff.twice = true;
    const Outcome run = CheckProgram(p.text, diff);
    EXPECT_EQ(run.kind, Outcome::kPass) << run.signature << "\n" << run.detail;
  }
}

}  // namespace
}  // namespace tessel::fuzz
