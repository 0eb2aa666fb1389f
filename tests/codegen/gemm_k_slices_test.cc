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
  auto slices = [](const codegen::GemmTile& tile, int64_t tiles, int64_t k_steps, int64_t rows) {
    return codegen::ChooseKSlices(tile, tiles, k_steps, rows).slices;
  };
  EXPECT_EQ(slices(narrow, 64, 64, 64), 2);  // 64 tiles: one wave of 128 units
  EXPECT_EQ(slices(narrow, 40, 64, 64), 3);  // 120 units
  EXPECT_EQ(slices(narrow, 8, 64, 64), 8);   // the most slices
  EXPECT_EQ(slices(narrow, 8, 20, 64), 2);   // slices of at least 8 K steps
  EXPECT_EQ(slices(narrow, 8, 15, 64), 1);
  EXPECT_EQ(slices(narrow, 96, 64, 64), 1);  // q/k/v at M = 64: slices over waves lose
  EXPECT_EQ(codegen::ChooseKSlices(narrow, 32, 64, 64).pieces, 32 * 4);
  codegen::GemmTile wide;  // 128 accumulators a thread
  EXPECT_EQ(slices(wide, 8, 64, 64), 1);
  codegen::GemmTile swapped;
  swapped.swap = true;
  swapped.bm = 16;
  swapped.bn = 128;
  EXPECT_EQ(slices(swapped, 32, 64, 16), 4);
  EXPECT_EQ(slices(swapped, 32, 64, 8), 4);
  EXPECT_EQ(slices(swapped, 32, 64, 7), 1);  // tiles mostly past the last row
}

TEST(GemmKSlicesTest, ASecondRoundThatLeavesMostSmsIdleIsSliced) {
  codegen::GemmTile wide;
  // 192 tiles of 128 x 256 (1536 x 4096 x 4096 on such tiles, which ChooseGemmTile now
  // narrows to whole waves) are a round of 132 and 60 left over, which take half a round in 2
  // slices (one wave of pieces).
  const codegen::KSlicing k = codegen::ChooseKSlices(wide, 192, 64, 1536);
  EXPECT_EQ(k.slices, 2);
  EXPECT_FALSE(k.all);
  EXPECT_EQ(k.pieces, 132);
  EXPECT_EQ(codegen::ChooseKSlices(wide, 172, 64, 200).slices, 3);  // 40 left over
  // Not where the last round is more than half full, after more than one round (measured
  // no faster: a sustained GEMM is held by power), for whole rounds, 64-row or swapped tiles
  // (held by DRAM), or a short K.
  EXPECT_EQ(codegen::ChooseKSlices(wide, 240, 64, 4096).slices, 1);
  EXPECT_EQ(codegen::ChooseKSlices(wide, 688, 64, 1024).slices, 1);
  EXPECT_EQ(codegen::ChooseKSlices(wide, 264, 64, 4096).slices, 1);
  EXPECT_EQ(codegen::ChooseKSlices(wide, 140, 15, 4096).slices, 1);
  codegen::GemmTile short_tile = wide;
  short_tile.bm = 64;
  EXPECT_EQ(codegen::ChooseKSlices(short_tile, 172, 64, 64).slices, 1);
  EXPECT_TRUE(codegen::ChooseKSlices(Narrow(), 64, 64, 64).all);  // fewer tiles than SMs
}

TEST(GemmKSlicesTest, TheKernelPicksTheSlicesThatEndItsWalkSoonest) {
  EXPECT_EQ(codegen::TailSlices(28, 132, 8, 132), 4);   // one round of 112 pieces
  EXPECT_EQ(codegen::TailSlices(28, 132, 8, 1000), 4);  // 8 would take two rounds: no sooner
  EXPECT_EQ(codegen::TailSlices(76, 132, 8, 1000), 5);  // 3 rounds of a fifth
  EXPECT_EQ(codegen::TailSlices(76, 132, 8, 132), 1);
  EXPECT_EQ(codegen::TailSlices(0, 132, 8, 132), 1);
  EXPECT_EQ(codegen::TailSlices(64, 128, 2, 128), 2);  // few tiles: the grid is tiles x 2
}

TEST(GemmKSlicesTest, ProjectionsOfADecodeBatchAreSliced) {
  const Tensor x = In({64, 4096});
  const codegen::KernelSource k = testing::OnlyHopperKernel(
      {matmul(x, In({4096, 1024})), matmul(x, In({4096, 512})), matmul(x, In({4096, 512}))});
  EXPECT_TRUE(absl::StrContains(k.source, "K_SLICES = 4, MAX_PIECES = 128")) << k.source;
  EXPECT_TRUE(absl::StrContains(k.source, "CUT_ALL = true")) << k.source;
  EXPECT_TRUE(absl::StrContains(k.schedule, "each tile's K in 4 slices")) << k.schedule;
  EXPECT_EQ(k.launches.at(0).grid[0], 32 * 4);
  EXPECT_EQ(k.workspace_bytes, codegen::KSliceWorkspaceBytes(Narrow(), false, 32 * 4));
  EXPECT_TRUE(absl::StrContains(k.source, "(unsigned char*)ws + 0)")) << k.source;
  // A dual GEMM's pieces hold both products.
  const codegen::KernelSource dual =
      testing::OnlyHopperKernel({silu(matmul(x, In({4096, 2048}))) * matmul(x, In({4096, 2048}))});
  EXPECT_TRUE(absl::StrContains(dual.source, "K_SLICES = 4, MAX_PIECES = 128")) << dual.source;
  EXPECT_EQ(dual.workspace_bytes, codegen::KSliceWorkspaceBytes(Narrow(), true, 32 * 4));
}

TEST(GemmKSlicesTest, AGemmOfOneRoundAndAHalfSlicesItsSecond) {
  // 19200 x 4096 x 128: 150 tiles of 128 x 128, 18 left over after a round, in as many
  // slices as keep them one wave of pieces (7: 126 pieces).
  const codegen::KernelSource k =
      testing::OnlyHopperKernel({matmul(In({19200, 4096}), In({4096, 128}))});
  EXPECT_TRUE(absl::StrContains(k.source, "K_SLICES = 7, MAX_PIECES = 132")) << k.source;
  EXPECT_TRUE(absl::StrContains(k.source, "CUT_ALL = false")) << k.source;
  EXPECT_TRUE(absl::StrContains(k.schedule, "the last round's tiles' K in 7 slices")) << k.schedule;
  EXPECT_EQ(k.launches.at(0).grid[0], 150 * 7);  // the runtime keeps one block an SM
  codegen::GemmTile narrow;
  narrow.bn = 128;
  EXPECT_EQ(k.workspace_bytes, codegen::KSliceWorkspaceBytes(narrow, false, 132));
  // 1536 x 4096 x 4096: whole waves of 128-wide tiles (384 in 3 rounds), none sliced, where
  // 256-wide ones took 2 rounds, the second's 60 tiles in slices (H200, forty-seventh
  // session: 100.2% of cuBLASLt against 93.9%).
  const codegen::KernelSource whole =
      testing::OnlyHopperKernel({matmul(In({1536, 4096}), In({4096, 4096}))});
  EXPECT_TRUE(absl::StrContains(whole.schedule, "tiles of 128 x 128")) << whole.schedule;
  EXPECT_FALSE(absl::StrContains(whole.schedule, "slices")) << whole.schedule;
}

TEST(GemmKSlicesTest, PiecesFollowAStagedOperandsCopy) {
  // Rows of 4095 values are staged (padded) in the workspace first.
  const codegen::KernelSource k =
      testing::OnlyHopperKernel({matmul(In({64, 4095}), In({4095, 512}))});
  ASSERT_TRUE(Sliced(k)) << k.source;
  const int64_t staged = k.workspace_bytes - codegen::KSliceWorkspaceBytes(Narrow(), false, 8 * 8);
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
