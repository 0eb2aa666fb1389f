// Repro export: the self-contained .cu builds with plain nvcc (skipped where none is installed).
#include "codegen/repro.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "codegen/inspect.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

std::string Nvcc() {
  const char* cuda = std::getenv("CUDA_PATH");
  const std::string path = absl::StrCat(cuda ? cuda : "/usr/local/cuda", "/bin/nvcc");
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

TEST(ReproTest, BuildsWithPlainNvcc) {
  const std::string nvcc = Nvcc();
  if (nvcc.empty()) GTEST_SKIP() << "no nvcc";
  Tensor x = Tensor(MakeInputNode(DType::kBF16, Device::kCPU, {64, 512}, nullptr));
  Tensor w = Tensor(MakeInputNode(DType::kBF16, Device::kCPU, {512}, nullptr));
  Tensor y = layer_norm(x, w, w);
  Tensor s = sum(cast(x, DType::kF32));
  const GeneratedPlan plan = PlanAndGenerate({&y.node(), &s.node()});
  ASSERT_EQ(plan.kernels.size(), 2u);  // a normalization and a streaming reduction
  for (const codegen::KernelSource& ks : plan.kernels) {
    const std::string dir = ::testing::TempDir();
    const std::string file = absl::StrCat(dir, "/", ks.name, ".cu");
    std::ofstream(file) << codegen::ReproSource(ks);
    const std::string command =
        absl::StrCat(nvcc, " -arch=sm_90a -o ", dir, "/", ks.name, ".o -c ", file, " 2>&1");
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
  }
}

}  // namespace
}  // namespace tessel
