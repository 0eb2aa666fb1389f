// The demo's greedy generation (examples/lm_model.h): forward passes over a growing sequence
// length T, on the driver that runs no kernels (tools/fake_cuda: an sm_90 GPU of 132 SMs whose
// kernels do nothing; NVRTC compiles for real), counting what each step costs the host: plans
// built and kernel modules loaded. Values are meaningless here; only the counts are checked.
// A length seen before reuses its plan and modules. A new length plans and compiles anew
// today (every T appears in non-leading dimensions: heads, scores, the causal mask);
// docs/plans/dynamic_sequence_lengths.md aims at once per bucket of lengths, when the
// per-length expectations below become per-bucket ones. Padding to a fixed length (the
// demo's way) runs one program for every length today.
#include <cstdlib>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/stats.h"
#include "examples/lm_model.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

struct Cost {
  int64_t plans = 0, modules = 0;
};

// The greedy step at length t: the last position's most likely next token.
Cost Step(const lm::Model& model, int64_t t) {
  const int64_t plans = GetStats().plans_built, modules = GetStats().modules_loaded;
  const Tensor ids = from_vector(std::vector<int64_t>(t, 7), {t}, DType::kI64, Device::kCUDA);
  (void)argmax(slice(lm::Forward(model, ids), 0, t - 1, t), 1).to_vector<int64_t>();
  return {GetStats().plans_built - plans, GetStats().modules_loaded - modules};
}

TEST(LmGenerationTest, ALengthSeenBeforeCostsNoPlanAndNoCompile) {
  // A fresh disk cache, so that modules_loaded counts this process's compiles.
  const char* tmp = std::getenv("TEST_TMPDIR");
  setenv("TESSEL_CACHE_DIR", (std::string(tmp != nullptr ? tmp : "/tmp") + "/cache").c_str(), 1);
  if (!GetBackend(Device::kCUDA).ok()) GTEST_SKIP() << "the fake driver did not load";
  for (bool swiglu : {false, true}) {
    SCOPED_TRACE(swiglu ? "swiglu" : "gelu");
    const lm::Model model = lm::RandomModel(Device::kCUDA, swiglu);
    std::vector<Cost> first;
    for (int64_t t = 8; t <= 11; ++t) {
      first.push_back(Step(model, t));
      // Today: every new length plans and loads modules of its own.
      EXPECT_GE(first.back().plans, 1) << "t = " << t;
      EXPECT_GE(first.back().modules, 1) << "t = " << t;
      std::cout << (swiglu ? "swiglu" : "gelu") << " t = " << t << ": " << first.back().plans
                << " plans, " << first.back().modules << " modules\n";
    }
    for (int64_t t = 8; t <= 11; ++t) {
      const Cost again = Step(model, t);
      EXPECT_EQ(again.plans, 0) << "t = " << t;
      EXPECT_EQ(again.modules, 0) << "t = " << t;
    }
  }
}

// The padded step (lm::NextToken): the same program at every length, so after the first
// step no length plans or compiles; and the same tokens as the step at the length itself, on
// the CPU.
TEST(LmGenerationTest, PaddedStepsShareOnePlan) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  setenv("TESSEL_CACHE_DIR", (std::string(tmp != nullptr ? tmp : "/tmp") + "/cache").c_str(), 1);
  if (!GetBackend(Device::kCUDA).ok()) GTEST_SKIP() << "the fake driver did not load";
  const lm::Model model = lm::RandomModel(Device::kCUDA, false);
  std::vector<int64_t> tokens = {3, 1, 4, 1, 5};
  (void)lm::NextToken(model, tokens, Device::kCUDA, true);
  for (int64_t t = 6; t <= 20; ++t) {
    tokens.push_back(t % 7);
    const int64_t plans = GetStats().plans_built, modules = GetStats().modules_loaded;
    (void)lm::NextToken(model, tokens, Device::kCUDA, true);
    EXPECT_EQ(GetStats().plans_built - plans, 0) << "t = " << t;
    EXPECT_EQ(GetStats().modules_loaded - modules, 0) << "t = " << t;
  }
  const lm::Model cpu = lm::RandomModel(Device::kCPU, false);
  std::vector<int64_t> prompt = {3, 1, 4, 1, 5, 9, 2, 6};
  for (int step = 0; step < 3; ++step) {
    const int64_t padded = lm::NextToken(cpu, prompt, Device::kCPU, true);
    EXPECT_EQ(padded, lm::NextToken(cpu, prompt, Device::kCPU, false)) << "step " << step;
    prompt.push_back(padded);
  }
}

}  // namespace
}  // namespace tessel
