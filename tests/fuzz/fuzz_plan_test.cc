// CI's share of the fuzzing: the plan mode over seeds 1..320, in 16 groups that the test's
// shards share; and seeds 1..80 with every operation its own kernel and rows past 128 values
// streamed (`fuzz plan --unfused --staged_row=128`: kernels that read from buffers what fused
// ones compute); seeds 81..160 with short 16-bit columns as tiles at any size (`fuzz plan
// --small_tiles`, in a process of its own, tests/fuzz/BUILD: the CUDA backend's plan cache
// keys no planner option but fusion, and would serve the default plans of the same
// programs). Each also runs through the CUDA backend on the driver that runs no kernels, which
// refuses the launches the real one refuses (seeds 1..80 also as an A100); even seeds again
// at other leading extents, as campaigns run them. A failure prints the seed, what it failed with
// and the program; `fuzz minimize --mode=plan --seed=N` shrinks it.
#include <cstdlib>
#include <initializer_list>
#include <utility>
#include <vector>

#include "core/backend.h"
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
    options.twice = seed % 2 == 0;
    const Outcome o = CheckProgram(text, options);
    EXPECT_EQ(o.kind, Outcome::kPass) << "seed " << seed << ": " << o.signature << "\n"
                                      << text << o.detail.substr(0, 2000);
  }
}

TEST_P(FuzzPlanTest, EveryGeneratedProgramPlansAndCompiles) { PlanGroup(GetParam(), {}); }

// Else plan mode skips the launches.
TEST(FuzzPlanLaunchTest, TheCudaBackendLoadsOnTheFakeDriver) {
  EXPECT_TRUE(GetBackend(Device::kCUDA).ok()) << GetBackend(Device::kCUDA).status();
}

INSTANTIATE_TEST_SUITE_P(Seeds, FuzzPlanTest, ::testing::Range(0, kGroups));

class UnfusedFuzzPlanTest : public ::testing::TestWithParam<int> {};

// What a fuzz flag sets for the planner (tools/fuzz/main.cc), for the test's life only.
class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<const char*, const char*>> values) : values_(values) {
    for (const auto& [name, value] : values_) setenv(name, value, 1);
  }
  ~ScopedEnv() {
    for (const auto& [name, value] : values_) unsetenv(name);
  }

 private:
  std::vector<std::pair<const char*, const char*>> values_;
};

// `fuzz plan --unfused --staged_row=128`.
TEST_P(UnfusedFuzzPlanTest, EveryGeneratedProgramPlansAndCompilesUnfused) {
  const ScopedEnv env({{"TESSEL_FUSION", "0"}, {"TESSEL_STAGED_ROW", "128"}});
  CheckOptions options;
  options.staged_row = 128;
  PlanGroup(GetParam(), options);
}

INSTANTIATE_TEST_SUITE_P(Seeds, UnfusedFuzzPlanTest, ::testing::Range(0, 4));

class SmallTilesFuzzPlanTest : public ::testing::TestWithParam<int> {};

// `fuzz plan --small_tiles`: short 16-bit columns as tiles in shared memory at the programs'
// small sizes.
TEST_P(SmallTilesFuzzPlanTest, EveryGeneratedProgramPlansAndCompilesWithSmallTiles) {
  const ScopedEnv env({{"TESSEL_SMALL_TILES", "1"}});
  PlanGroup(GetParam(), {});
}

INSTANTIATE_TEST_SUITE_P(Seeds, SmallTilesFuzzPlanTest, ::testing::Range(4, 8));

}  // namespace
}  // namespace tessel::fuzz
