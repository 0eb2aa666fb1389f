// TESSEL_DUMP's plan and Graphviz files (the CUDA backend writes the .cu/.ptx beside them).
#include "backend/dump.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/realize.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(DumpTest, WritesThePlanAndAGraphColouredByKernel) {
  Tensor x = Tensor(MakeInputNode(DType::kF32, Device::kCPU, {8, 16}, nullptr));
  Tensor y = softmax(x) + sum(x * 2.0, {0}, true);
  const FusionPlan plan = PlanFusion(CollectProgram({&y.node()}));
  const std::string dir = absl::StrCat(::testing::TempDir(), "/dump-", getpid());
  backend::DumpPlan(dir, plan, {&y.node()});
  const std::string text = Read(dir + "/realize-0.plan.txt");
  EXPECT_NE(text.find("kernel 0"), std::string::npos) << text;
  const std::string dot = Read(dir + "/realize-0.dot");
  EXPECT_EQ(dot.rfind("digraph tessel {", 0), 0u) << dot;
  EXPECT_NE(dot.find("%0 input f32[8,16]\\ninput"), std::string::npos) << dot;
  EXPECT_NE(dot.find("kernel 1"), std::string::npos) << dot;  // softmax and the column sum
  EXPECT_NE(dot.find(" -> "), std::string::npos);
}

// The directory is made where missing; a file of that name is refused, not silently no dumps.
TEST(DumpTest, TheDirectoryIsMadeOrRefused) {
  const std::string dir = absl::StrCat(::testing::TempDir(), "/dump-dir-", getpid(), "/a/b");
  setenv("TESSEL_DUMP", dir.c_str(), 1);
  absl::StatusOr<std::string> made = backend::DumpDirectory();
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(*made, dir);
  EXPECT_EQ(access(dir.c_str(), W_OK), 0);
  const std::string file = absl::StrCat(::testing::TempDir(), "/dump-file-", getpid());
  std::ofstream(file) << "x";
  setenv("TESSEL_DUMP", file.c_str(), 1);
  absl::StatusOr<std::string> refused = backend::DumpDirectory();
  unsetenv("TESSEL_DUMP");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("TESSEL_DUMP='"), std::string::npos);
  EXPECT_EQ(backend::DumpDirectory().value_or("?"), "");
}

}  // namespace
}  // namespace tessel
