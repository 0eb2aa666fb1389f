// Few-row GEMMs on sm_90a (codegen/gemm_sm90_tiles.cc, ChooseSwappedTile): rows up to 32,
// and 65-128 over many columns, trade places with B's columns in the tensor cores (SWAP), with
// 16-, 32- or 128-row tiles and A's box the output's rows rounded up to 8, a grid
// of every tile and TMA stores of a consumer's rows, in every GEMM form (siblings, dual,
// grouped); more rows, A read transposed and TF32 keep the usual tiles. (NVRTC compiles the
// corpus's swapped_* cases in codegen_test; gemm_test runs them against the CPU.)
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "codegen/gemm_common.h"
#include "codegen/gemm_sm90_tiles.h"
#include "codegen/generate.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/codegen/hopper_plans.h"

namespace tessel {
namespace {

Tensor In(Shape shape, DType dtype = DType::kBF16) { return testing::Placeholder(shape, dtype); }

bool Swaps(const codegen::KernelSource& k) { return absl::StrContains(k.source, "SWAP = true"); }

TEST(GemmSwapTest, TileRowsFollowTheLongestOutput) {
  EXPECT_EQ(codegen::ChooseSwappedTile({{1, 4096}}, 1)->bm, 16);
  EXPECT_EQ(codegen::ChooseSwappedTile({{16, 4096}}, 1)->bm, 16);
  EXPECT_EQ(codegen::ChooseSwappedTile({{8, 4096}, {17, 1024}}, 1)->bm, 32);
  EXPECT_FALSE(codegen::ChooseSwappedTile({{33, 4096}}, 1).has_value());
  // Two consumers only where 128-wide tiles still give every SM one.
  EXPECT_EQ(codegen::ChooseSwappedTile({{16, 4096}}, 1)->bn, 64);
  EXPECT_EQ(codegen::ChooseSwappedTile({{16, 32768}}, 1)->bn, 128);
  EXPECT_EQ(codegen::ChooseSwappedTile({{16, 4096}}, 8)->bn, 128);
  const codegen::GemmTile tile = *codegen::ChooseSwappedTile({{16, 4096}}, 1);
  EXPECT_GE(tile.stages, 8);  // a stage is nearly all B: deep rings for the stream
}

// 65-128 rows: one tile of 128 where whole tiles of 64 columns keep half the SMs busy; 33-64
// rows never (one tile row of 64 reads B once already).
TEST(GemmSwapTest, RowsPastSixtyFourSwapOnlyOverManyColumns) {
  for (int64_t m : {65, 100, 128}) {
    SCOPED_TRACE(m);
    const std::optional<codegen::GemmTile> wide = codegen::ChooseSwappedTile({{m, 14336}}, 1);
    ASSERT_TRUE(wide.has_value());
    EXPECT_EQ(wide->bm, 128);
    EXPECT_EQ(wide->bn, 64);  // 112 tiles of 128 columns would leave SMs idle
    EXPECT_EQ(codegen::ChooseSwappedTile({{m, 32000}}, 1)->bn, 128);
    EXPECT_EQ(codegen::ChooseSwappedTile({{m, 4096}, {m, 1024}, {m, 1024}}, 1)->bm, 128);
    EXPECT_FALSE(codegen::ChooseSwappedTile({{m, 4096}}, 1).has_value());  // 64 tiles
    EXPECT_EQ(codegen::ChooseSwappedTile({{m, 4096}}, 2)->bm, 128);        // 128
  }
  EXPECT_FALSE(codegen::ChooseSwappedTile({{48, 32000}}, 1).has_value());
  EXPECT_FALSE(codegen::ChooseSwappedTile({{64, 32000}}, 1).has_value());
  EXPECT_FALSE(codegen::ChooseSwappedTile({{129, 32000}}, 1).has_value());
}

TEST(GemmSwapTest, AsBoxHoldsTheOutputsRowsRoundedUpToEight) {
  const codegen::KernelSource k =
      testing::OnlyHopperKernel({matmul(In({100, 512}), In({512, 14336}))});
  EXPECT_TRUE(Swaps(k)) << k.source;
  EXPECT_EQ(k.tensor_maps.at(0).box[1], 104);
  EXPECT_TRUE(absl::StrContains(k.source, "BM = 128, BN = 64")) << k.source;
  EXPECT_TRUE(absl::StrContains(k.source, "A_BOX_ROWS = 104")) << k.source;
  const codegen::KernelSource one =
      testing::OnlyHopperKernel({matmul(In({1, 512}), In({512, 4096}))});
  EXPECT_EQ(one.tensor_maps.at(0).box[1], 8);
  // Two tile rows of 64 where 128-row tiles would be too few (the second's box moved up).
  const codegen::KernelSource narrow =
      testing::OnlyHopperKernel({matmul(In({100, 512}), In({512, 4096}))});
  EXPECT_FALSE(Swaps(narrow));
  EXPECT_EQ(narrow.tensor_maps.at(0).box[1], 64);
}

TEST(GemmSwapTest, DecodeProjectionSwapsAndCoversEveryTile) {
  const codegen::KernelSource k =
      testing::OnlyHopperKernel({matmul(In({16, 512}), In({512, 4096}))});
  EXPECT_TRUE(Swaps(k)) << k.source;
  // 64 tiles of 8 K steps: too short to slice (gemm_k_slices_test).
  EXPECT_EQ(k.schedule,
            "wgmma with the operands swapped (rows as its N), tiles of 16 x 64, 8 stages");
  EXPECT_EQ(k.launches.at(0).grid[0], 4096 / 64);
  ASSERT_EQ(k.tensor_maps.size(), 3u);     // A, B, the output stored by TMA
  EXPECT_EQ(k.tensor_maps[0].box[1], 16);  // A's 16 rows a stage
  EXPECT_EQ(k.tensor_maps[2].box[1], 16);  // the output box: a consumer's 16 x 64
  EXPECT_LE(k.launches.at(0).shared_bytes, 227 * 1024);
}

TEST(GemmSwapTest, EpiloguesSiblingsAndBatchesSwapToo) {
  EXPECT_TRUE(
      Swaps(testing::OnlyHopperKernel({gelu(matmul(In({1, 256}), In({256, 200})) + In({200}))})));
  EXPECT_TRUE(Swaps(testing::OnlyHopperKernel(
      {matmul(In({20, 64}, DType::kF16), transpose(In({45, 64}, DType::kF16)))})));
  const Tensor x = In({8, 256});
  EXPECT_TRUE(
      Swaps(testing::OnlyHopperKernel({matmul(x, In({256, 512})), matmul(x, In({256, 128}))})));
  EXPECT_TRUE(Swaps(testing::OnlyHopperKernel({matmul(In({3, 5, 64}), In({64, 96}))})));
  // A dual GEMM (SwiGLU's gate and up) and experts of at most 32 rows each.
  const Tensor y = In({16, 128});
  const codegen::KernelSource dual =
      testing::OnlyHopperKernel({silu(matmul(y, In({128, 1024}))) * matmul(y, In({128, 1024}))});
  EXPECT_TRUE(Swaps(dual));
  EXPECT_NE(dual.source.find("DUAL = true"), std::string::npos);
  const codegen::KernelSource grouped =
      testing::OnlyHopperKernel(grouped_matmul({In({1, 128}), In({20, 128}), In({32, 64})},
                                               {In({128, 256}), In({128, 136}), In({64, 512})}));
  EXPECT_TRUE(Swaps(grouped));
  EXPECT_NE(grouped.source.find("GROUPED = true"), std::string::npos);
  EXPECT_EQ(grouped.launches.at(0).grid[0], 4 + 3 + 8);  // 64-column tiles of 32 rows
}

TEST(GemmSwapTest, OtherGemmsKeepTheirTiles) {
  EXPECT_FALSE(Swaps(testing::OnlyHopperKernel({matmul(In({33, 512}), In({512, 4096}))})));
  EXPECT_FALSE(
      Swaps(testing::OnlyHopperKernel({matmul(transpose(In({512, 16})), In({512, 4096}))})));
  EXPECT_FALSE(Swaps(testing::OnlyHopperKernel(
      grouped_matmul({In({32, 128}), In({33, 128})}, {In({128, 256}), In({128, 256})}))));
  set_matmul_precision(MatmulPrecision::kTF32);
  EXPECT_FALSE(Swaps(testing::OnlyHopperKernel(
      {matmul(In({16, 512}, DType::kF32), In({512, 4096}, DType::kF32))})));
  set_matmul_precision(MatmulPrecision::kHighest);
}

}  // namespace
}  // namespace tessel
