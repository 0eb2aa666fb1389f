// Repro export: the self-contained .cu builds with plain nvcc (skipped where none is installed).
#include "codegen/repro.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/generate.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

std::string Nvcc() {
  const char* cuda = std::getenv("CUDA_PATH");
  const std::string path = absl::StrCat(cuda ? cuda : "/usr/local/cuda", "/bin/nvcc");
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

// A gather whose indices are known in range (an argmax's, from another kernel) has no check
// and clamps nothing: the harness must still fill them in range.
TEST(ReproTest, FillsUncheckedIndicesInRange) {
  Tensor x = Tensor(MakeInputNode(DType::kF32, Device::kCPU, {64, 512}, nullptr));
  Tensor known = gather(x, 1,
                        argmax(Tensor(MakeInputNode(DType::kF32, Device::kCPU, {64, 300}, nullptr)),
                               1, true)) *
                 2.0;
  std::vector<codegen::KernelSource> kernels =
      codegen::PlanAndGenerate({&known.node()}, Target{}).kernels;
  const auto gathers = std::find_if(kernels.begin(), kernels.end(), [](const auto& k) {
    return std::any_of(k.inputs.begin(), k.inputs.end(),
                       [](const Node* n) { return n->dtype() == DType::kI64; });
  });
  ASSERT_NE(gathers, kernels.end());
  EXPECT_TRUE(gathers->index_checks.empty());
  const std::string source = codegen::ReproSource(*gathers);
  EXPECT_TRUE(absl::StrContains(source, "repro_fill_index_i64") &&
              absl::StrContains(source, "ull, 512LL);"))
      << source;
}

TEST(ReproTest, BuildsWithPlainNvcc) {
  const std::string nvcc = Nvcc();
  if (nvcc.empty()) GTEST_SKIP() << "no nvcc";
  Tensor x = Tensor(MakeInputNode(DType::kBF16, Device::kCPU, {64, 512}, nullptr));
  Tensor w = Tensor(MakeInputNode(DType::kBF16, Device::kCPU, {512}, nullptr));
  Tensor y = layer_norm(x, w, w);
  Tensor s = sum(cast(x, DType::kF32));
  Tensor a = Tensor(MakeInputNode(DType::kBF16, Device::kCPU, {300, 512}, nullptr));
  Tensor g = gelu(matmul(a, transpose(x)) + 1.0);
  // A gather's index check (the `bad` records) in a streaming reduction, as cross-entropy.
  Tensor ids = Tensor(MakeInputNode(DType::kI64, Device::kCPU, {64, 1}, nullptr));
  Tensor loss = logsumexp(x, {1}, true) - gather(x, 1, ids);
  std::vector<codegen::KernelSource> kernels =
      codegen::PlanAndGenerate({&y.node(), &s.node(), &loss.node()}, Target{}).kernels;
  ASSERT_GE(kernels.size(), 2u);  // a normalization, streaming reductions
  const auto checked = std::find_if(kernels.begin(), kernels.end(),
                                    [](const auto& k) { return !k.index_checks.empty(); });
  ASSERT_NE(checked, kernels.end());
  // Its indices filled in range of the gathered axis (512), not timing the error report.
  const std::string checked_source = codegen::ReproSource(*checked);
  EXPECT_TRUE(absl::StrContains(checked_source, "repro_fill_index_i64<<<1024, 256>>>(in") &&
              absl::StrContains(checked_source, ", 64LL, ") &&
              absl::StrContains(checked_source, "ull, 512LL);"))
      << checked_source;
  // The tensor-core GEMMs, with the device library pasted in: TMA and wgmma, and mma.sync.
  for (const Target& t : {Target{9, 0, true}, Target{8, 0, false}}) {
    std::vector<codegen::KernelSource> gemm = codegen::PlanAndGenerate({&g.node()}, t).kernels;
    ASSERT_EQ(gemm.size(), 1u);
    kernels.push_back(gemm[0]);
  }
  // Long columns over a cluster of 16 blocks (past the portable 8): the repro allows it.
  Tensor cols = Tensor(MakeInputNode(DType::kBF16, Device::kCPU, {16384, 8192}, nullptr));
  Tensor column_softmax = softmax(cols, 0);
  std::vector<codegen::KernelSource> column =
      codegen::PlanAndGenerate({&column_softmax.node()}, Target{9, 0, true}).kernels;
  ASSERT_EQ(column.size(), 1u);
  ASSERT_GT(column[0].launches.at(0).cluster, 8);
  EXPECT_NE(codegen::ReproSource(column[0]).find("cudaFuncAttributeNonPortableClusterSizeAllowed"),
            std::string::npos);
  kernels.push_back(column[0]);
  for (const codegen::KernelSource& ks : kernels) {
    const std::string dir = ::testing::TempDir();
    const std::string file = absl::StrCat(dir, "/", ks.name, ".cu");
    std::ofstream(file) << codegen::ReproSource(ks);
    const std::string command = absl::StrCat(nvcc, " -gencode arch=compute_90a,code=sm_90a -o ",
                                             dir, "/", ks.name, ".o -c ", file, " 2>&1");
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
  }
}

}  // namespace
}  // namespace tessel
