// CI's share of the fuzzing: the plan mode over seeds 1..320, in 16 groups that the test's
// shards share; and seeds 1..80 with every operation its own kernel and rows past 128 values
// streamed (`fuzz plan --unfused --staged_row=128`: kernels that read from buffers what fused
// ones compute). A failure prints the seed, what it failed with and the program;
// `fuzz minimize --mode=plan --seed=N` shrinks it.
#include <cstdlib>

#include "gtest/gtest.h"
#include "tools/fuzz/check.h"
#include "tools/fuzz/generator.h"

namespace tessel::fuzz {
namespace {

constexpr int kGroups = 16;
constexpr int kPerGroup = 20;

class FuzzPlanTest : public ::testing::TestWithParam<int> {};

void PlanGroup(int group, const CheckOptions& given) {
  const uint64_t first = 1 + group * kPerGroup;
  for (uint64_t seed = first; seed < first + kPerGroup; ++seed) {
    const std::string text = GenerateProgram(seed, GeneratorFor(given));
    CheckOptions options = given;
    options.mode = Mode::kPlan;
    options.data_seed = seed;
    const Outcome o = CheckProgram(text, options);
    EXPECT_EQ(o.kind, Outcome::kPass) << "seed " << seed << ": " << o.signature << "\n"
                                      << text << o.detail.substr(0, 2000);
  }
}

TEST_P(FuzzPlanTest, EveryGeneratedProgramPlansAndCompiles) { PlanGroup(GetParam(), {}); }

INSTANTIATE_TEST_SUITE_P(Seeds, FuzzPlanTest, ::testing::Range(0, kGroups));

class UnfusedFuzzPlanTest : public ::testing::TestWithParam<int> {};

// What `fuzz plan --unfused --staged_row=128` sets for the planner (tools/fuzz/main.cc), for
// the test's life only.
struct UnfusedStreamingEnv {
  UnfusedStreamingEnv() {
    setenv("TESSEL_FUSION", "0", 1);
    setenv("TESSEL_STAGED_ROW", "128", 1);
  }
  ~UnfusedStreamingEnv() {
    unsetenv("TESSEL_FUSION");
    unsetenv("TESSEL_STAGED_ROW");
  }
};

TEST_P(UnfusedFuzzPlanTest, EveryGeneratedProgramPlansAndCompilesUnfused) {
  const UnfusedStreamingEnv env;
  CheckOptions options;
  options.staged_row = 128;
  PlanGroup(GetParam(), options);
}

INSTANTIATE_TEST_SUITE_P(Seeds, UnfusedFuzzPlanTest, ::testing::Range(0, 4));

}  // namespace
}  // namespace tessel::fuzz
