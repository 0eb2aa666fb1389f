// K slices on sm_90a (codegen/gemm_k_slices.cc): which tile walks cut their tiles' K into
// slices for the SMs to share, and what such a kernel asks of the host (a unit a block, the
// pieces' workspace after any staged operand's copy). NVRTC compiles the corpus's k_slices_*
// cases in codegen_test; gemm_test and loop_test run them against the CPU.
#include "codegen/gemm_k_slices.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/gemm_common.h"
#include "codegen/generate.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/codegen/hopper_plans.h"

namespace tessel {
namespace {

Tensor In(Shape shape, DType dtype = DType::kBF16) { return testing::Placeholder(shape, dtype); }

bool Sliced(const codegen::KernelSource& k) {
  return !absl::StrContains(k.source, "K_SLICES = 1,");
}

codegen::GemmTile Narrow() {
  codegen::GemmTile tile;
  tile.bm = tile.bn = 64;
  return tile;
}

TEST(GemmKSlicesTest, SlicesWhereWholeTilesLeaveHalfTheSmsIdle) {
  const codegen::GemmTile narrow = Narrow();
  EXPECT_EQ(codegen::KSlices(narrow, 64, 64, 64), 2);  // 64 tiles: one wave of 128 units
  EXPECT_EQ(codegen::KSlices(narrow, 40, 64, 64), 3);  // 120 units
  EXPECT_EQ(codegen::KSlices(narrow, 8, 64, 64), 8);   // the most slices
  EXPECT_EQ(codegen::KSlices(narrow, 8, 20, 64), 2);   // slices of at least 8 K steps
  EXPECT_EQ(codegen::KSlices(narrow, 8, 15, 64), 1);
  EXPECT_EQ(codegen::KSlices(narrow, 96, 64, 64), 1);   // q/k/v at M = 64: slices over waves lose
  EXPECT_EQ(codegen::KSlices(narrow, 172, 64, 64), 1);  // SwiGLU's gate and up
  codegen::GemmTile wide;                               // 128 accumulators a thread
  EXPECT_EQ(codegen::KSlices(wide, 8, 64, 64), 1);
  codegen::GemmTile swapped;
  swapped.swap = true;
  swapped.bm = 16;
  swapped.bn = 128;
  EXPECT_EQ(codegen::KSlices(swapped, 32, 64, 16), 4);
  EXPECT_EQ(codegen::KSlices(swapped, 32, 64, 8), 4);
  EXPECT_EQ(codegen::KSlices(swapped, 32, 64, 7), 1);  // tiles mostly past the last row
}

TEST(GemmKSlicesTest, ProjectionsOfADecodeBatchAreSliced) {
  const Tensor x = In({64, 4096});
  const codegen::KernelSource k = testing::OnlyHopperKernel(
      {matmul(x, In({4096, 1024})), matmul(x, In({4096, 512})), matmul(x, In({4096, 512}))});
  EXPECT_TRUE(absl::StrContains(k.source, "K_SLICES = 4, MAX_TILES = 32")) << k.source;
  EXPECT_TRUE(absl::StrContains(k.schedule, "each tile's K in 4 slices")) << k.schedule;
  EXPECT_EQ(k.launches.at(0).grid[0], 32 * 4);
  EXPECT_EQ(k.workspace_bytes, codegen::KSliceWorkspaceBytes(Narrow(), false, 32, 4));
  EXPECT_TRUE(absl::StrContains(k.source, "(unsigned char*)ws + 0)")) << k.source;
  // A dual GEMM's pieces hold both products.
  const codegen::KernelSource dual =
      testing::OnlyHopperKernel({silu(matmul(x, In({4096, 2048}))) * matmul(x, In({4096, 2048}))});
  EXPECT_TRUE(absl::StrContains(dual.source, "K_SLICES = 4, MAX_TILES = 32")) << dual.source;
  EXPECT_EQ(dual.workspace_bytes, codegen::KSliceWorkspaceBytes(Narrow(), true, 32, 4));
}

TEST(GemmKSlicesTest, PiecesFollowAStagedOperandsCopy) {
  // Rows of 4095 values are staged (padded) in the workspace first.
  const codegen::KernelSource k =
      testing::OnlyHopperKernel({matmul(In({64, 4095}), In({4095, 512}))});
  ASSERT_TRUE(Sliced(k)) << k.source;
  const int64_t staged = k.workspace_bytes - codegen::KSliceWorkspaceBytes(Narrow(), false, 8, 8);
  EXPECT_GT(staged, 0);
  EXPECT_EQ(staged % 256, 0);
  EXPECT_TRUE(absl::StrContains(k.source, absl::StrCat("(unsigned char*)ws + ", staged, ")")))
      << k.source;
}

TEST(GemmKSlicesTest, OtherWalksKeepWholeTiles) {
  const Tensor x = In({64, 4096});
  EXPECT_FALSE(Sliced(testing::OnlyHopperKernel(
      {matmul(x, In({4096, 4096})), matmul(x, In({4096, 1024})), matmul(x, In({4096, 1024}))})));
  EXPECT_FALSE(Sliced(testing::OnlyHopperKernel({matmul(In({1024, 4096}), In({4096, 1024}))})));
  EXPECT_FALSE(
      Sliced(testing::OnlyHopperKernel({matmul(In({64, 256}), In({256, 4096}))})));  // short K
  EXPECT_FALSE(Sliced(testing::OnlyHopperKernel(
      grouped_matmul({In({1, 4096}), In({50, 4096})}, {In({4096, 512}), In({4096, 512})}))));
  set_matmul_precision(MatmulPrecision::kTF32);
  const codegen::KernelSource tf32 = testing::OnlyHopperKernel(
      {matmul(In({64, 4096}, DType::kF32), In({4096, 512}, DType::kF32))});
  set_matmul_precision(MatmulPrecision::kHighest);
  EXPECT_FALSE(Sliced(tf32));
  EXPECT_TRUE(absl::StrContains(tf32.source, "TF32 = true")) << tf32.source;
}

}  // namespace
}  // namespace tessel
