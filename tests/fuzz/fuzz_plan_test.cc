// CI's share of the fuzzing: the plan mode over seeds 1..320, in 16 groups that the test's
// shards share. A failure prints the seed, what it failed with and the program;
// `fuzz minimize --mode=plan --seed=N` shrinks it.
#include "gtest/gtest.h"
#include "tools/fuzz/check.h"
#include "tools/fuzz/generator.h"

namespace tessel::fuzz {
namespace {

constexpr int kGroups = 16;
constexpr int kPerGroup = 20;

class FuzzPlanTest : public ::testing::TestWithParam<int> {};

TEST_P(FuzzPlanTest, EveryGeneratedProgramPlansAndCompiles) {
  const uint64_t first = 1 + GetParam() * kPerGroup;
  for (uint64_t seed = first; seed < first + kPerGroup; ++seed) {
    const std::string text = GenerateProgram(seed);
    CheckOptions options;
    options.mode = Mode::kPlan;
    options.data_seed = seed;
    const Outcome o = CheckProgram(text, options);
    EXPECT_EQ(o.kind, Outcome::kPass) << "seed " << seed << ": " << o.signature << "\n"
                                      << text << o.detail.substr(0, 2000);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, FuzzPlanTest, ::testing::Range(0, kGroups));

}  // namespace
}  // namespace tessel::fuzz
