// The tensor-core GEMMs' tiles and operand staging on sm_90a (codegen/gemm_staging.h,
// ChooseGemmTile): rows that are not 16-byte multiples and TF32 operands staged for TMA, and
// every tile the heuristic picks within the shared memory a block may use; no GPU needed.
#include "absl/strings/match.h"
#include "codegen/gemm_common.h"
#include "codegen/gemm_sm90_tiles.h"
#include "codegen/generate.h"
#include "core/realize.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "tests/codegen/hopper_plans.h"

namespace tessel {
namespace {

// Operand rows that are not 16-byte multiples stay on tensor cores: a staging entry first
// copies them to padded rows in the workspace, which the TMA maps (sm_90a) or the 16-byte
// copies (sm_80) then read; aligned operands are read in place.
TEST(GemmTilesTest, UnalignedRowsAreStagedForTensorCores) {
  auto in = [](Shape s) { return Tensor(MakeInputNode(DType::kBF16, Device::kCPU, s, nullptr)); };
  const Tensor y = matmul(in({4097, 4096}), in({4096, 4095}));
  for (const Target& target : {Target{9, 0, true}, Target{8, 0, false}}) {
    SCOPED_TRACE(target.Name());
    const std::vector<codegen::KernelSource> ks =
        codegen::PlanAndGenerate({&y.node()}, target).kernels;
    ASSERT_EQ(ks.size(), 1u);
    ASSERT_EQ(ks[0].launches.size(), 2u);
    EXPECT_TRUE(absl::EndsWith(ks[0].launches[0].entry, "_stage"));
    EXPECT_EQ(ks[0].launches[0].grid[0], 4096 * 4096 / 8 / 256);  // B only, 16 bytes a thread
    EXPECT_EQ(ks[0].workspace_bytes, 4096 * 4096 * 2);
    if (target.major == 9) {
      ASSERT_EQ(ks[0].tensor_maps.size(), 2u);
      EXPECT_EQ(ks[0].tensor_maps[0].arg, 0);  // A in place
      EXPECT_EQ(ks[0].tensor_maps[1].arg, 3);  // B's copy: the workspace (after in0, in1, out0)
      EXPECT_EQ(ks[0].tensor_maps[1].dims[0], 4095);  // zeros past the row, from TMA's fill
      EXPECT_EQ(ks[0].tensor_maps[1].strides[0], 8192);
    }
  }
  // With the batch as the rows argument: B staged keeps it; A staged (its copy would be
  // sized by the rows) takes static rows, on tensor cores only.
  auto takes_rows = [](const Tensor& a, const Tensor& b) {
    const Tensor y = matmul(a, b);
    const FusionPlan plan = PlanFusion(CollectProgram({&y.node()}));
    codegen::DynamicRows rows;
    rows.max = 1 << 12;
    rows.nodes = {&a.node(), &y.node()};
    std::vector<codegen::SpecializedKernel> specialized;
    codegen::GeneratePlanWithRows(plan, Target{9, 0, true}, rows, &specialized);
    return specialized.empty();
  };
  EXPECT_TRUE(takes_rows(testing::Placeholder({777, 64}), in({64, 45})));
  EXPECT_FALSE(takes_rows(testing::Placeholder({777, 33}), in({33, 48})));
  EXPECT_TRUE(takes_rows(testing::Placeholder({777, 33}, DType::kF32),
                         testing::Placeholder({33, 48}, DType::kF32)));  // the plain kernel
  // Aligned operands: one launch, no workspace.
  const Tensor aligned = matmul(in({4097, 4096}), in({4096, 4096}));
  const std::vector<codegen::KernelSource> ks = testing::GenerateForHopper({aligned}).kernels;
  EXPECT_EQ(ks[0].launches.size(), 1u);
  EXPECT_EQ(ks[0].workspace_bytes, 0);
}

// A kernel that takes the batch serves a bucket of row counts: where its fewest rows take a
// tile of fewer rows than its most (64 x 4096 x 4096 in the bucket 64..127), that tile, with
// K cut at run time for the tiles a batch has; else the kernel for its most rows, as a kernel
// specialized to them (the bucket 128..255). A kernel for fixed rows under 128 takes 64-row
// tiles.
TEST(GemmTilesTest, BatchBucketsTakeTilesForTheirFewestRows) {
  const Tensor x = testing::Placeholder({100, 4096}), w = testing::Placeholder({4096, 4096});
  const Tensor y = matmul(x, w);
  const FusionPlan plan = PlanFusion(CollectProgram({&y.node()}));
  auto source = [&](int64_t least, int64_t most) {
    codegen::DynamicRows rows;
    rows.min = least;
    rows.max = most;
    rows.nodes = {&x.node(), &y.node()};
    std::vector<codegen::SpecializedKernel> specialized;
    std::vector<codegen::KernelSource> ks =
        codegen::GeneratePlanWithRows(plan, Target{9, 0, true}, rows, &specialized);
    EXPECT_TRUE(specialized.empty() && ks.size() == 1u);
    return ks.empty() ? codegen::KernelSource{} : ks[0];
  };
  const codegen::KernelSource decode = source(64, 127);
  EXPECT_TRUE(absl::StrContains(decode.schedule, "tiles of 64 x 64")) << decode.schedule;
  EXPECT_TRUE(absl::StrContains(decode.source, "K_SLICES = 2, MAX_PIECES = 132"));
  EXPECT_TRUE(absl::StrContains(decode.source, "CUT_ALL = false"));
  const codegen::KernelSource wider = source(128, 255);
  EXPECT_TRUE(absl::StrContains(wider.schedule, "tiles of 128 x 64")) << wider.schedule;
  EXPECT_EQ(wider.source, source(0, 255).source);  // min unsaid: the tile for the most rows
  const codegen::KernelSource few = source(32, 63);
  EXPECT_TRUE(absl::StrContains(few.schedule, "swapped")) << few.schedule;
  // Fixed rows under 128 (16-bit) take 64-row tiles: two tile rows of 100.
  const std::vector<codegen::KernelSource> fixed = testing::GenerateForHopper({y}).kernels;
  ASSERT_EQ(fixed.size(), 1u);
  EXPECT_TRUE(absl::StrContains(fixed[0].schedule, "tiles of 64 x 64")) << fixed[0].schedule;
}

// f32 under TF32 on Hopper: wgmma reads 32-bit operands only K-major, so an MN-major operand
// is staged transposed (B, [k, n]); A, K-major with 16-byte rows, is read as stored (the
// tensor cores truncate its values to TF32, as the CPU backend does); A with rows of 201
// floats is staged.
TEST(GemmTilesTest, Tf32OnHopperStagesKMajorOperands) {
  set_matmul_precision(MatmulPrecision::kTF32);
  auto in = [](Shape s) { return Tensor(MakeInputNode(DType::kF32, Device::kCPU, s, nullptr)); };
  const Tensor y = matmul(in({300, 200}), in({200, 264}));
  const Tensor odd = matmul(in({300, 201}), in({201, 264}));
  set_matmul_precision(MatmulPrecision::kHighest);
  const std::vector<codegen::KernelSource> ks = testing::GenerateForHopper({y}).kernels;
  ASSERT_EQ(ks.size(), 1u);
  ASSERT_EQ(ks[0].launches.size(), 2u);
  EXPECT_TRUE(absl::EndsWith(ks[0].launches[0].entry, "_transpose"));
  EXPECT_EQ(ks[0].launches[0].grid[0], 7 * 9);  // 32 x 32 tiles of B
  ASSERT_EQ(ks[0].tensor_maps.size(), 2u);
  EXPECT_EQ(ks[0].tensor_maps[0].arg, 0);  // A as stored
  EXPECT_EQ(ks[0].tensor_maps[1].arg, 3);  // B's copy, in the workspace
  for (const codegen::TensorMapSpec& map : ks[0].tensor_maps) {
    EXPECT_EQ(map.dtype, DType::kF32);
    EXPECT_EQ(map.box[0], 32);    // 128-byte rows
    EXPECT_EQ(map.dims[0], 200);  // K innermost: both K-major
  }
  EXPECT_EQ(ks[0].tensor_maps[1].dims[1], 264);
  EXPECT_EQ(ks[0].workspace_bytes, 264 * 200 * 4);
  const std::vector<codegen::KernelSource> padded = testing::GenerateForHopper({odd}).kernels;
  ASSERT_EQ(padded.size(), 1u);
  ASSERT_EQ(padded[0].launches.size(), 3u);
  EXPECT_TRUE(absl::EndsWith(padded[0].launches[0].entry, "_stage"));

  // B as stored on a tile of 128 rows and 256 columns: read into registers (gemm_sm90.cuh's
  // B_REGS), in place, in boxes of 32 columns by the stage's 32 k-rows; no copy.
  set_matmul_precision(MatmulPrecision::kTF32);
  const Tensor wide = matmul(in({2000, 96}), in({96, 2100}));
  set_matmul_precision(MatmulPrecision::kHighest);
  const std::vector<codegen::KernelSource> regs = testing::GenerateForHopper({wide}).kernels;
  ASSERT_EQ(regs.size(), 1u);
  EXPECT_EQ(regs[0].launches.size(), 1u);
  EXPECT_EQ(regs[0].workspace_bytes, 0);
  EXPECT_TRUE(absl::StrContains(regs[0].schedule, "B read into registers")) << regs[0].schedule;
  ASSERT_EQ(regs[0].tensor_maps.size(), 2u);
  EXPECT_EQ(regs[0].tensor_maps[1].arg, 1);  // B as stored
  EXPECT_EQ(regs[0].tensor_maps[1].dims[0], 2100);
  EXPECT_EQ(regs[0].tensor_maps[1].box[0], 32);
  EXPECT_EQ(regs[0].tensor_maps[1].box[1], 32);

  // Three TF32 products (kHigh): each operand's TF32 part and remainder, two matrices along
  // the maps' third axis, twice the workspace.
  set_matmul_precision(MatmulPrecision::kHigh);
  const Tensor high = matmul(in({300, 200}), in({200, 264}));
  set_matmul_precision(MatmulPrecision::kHighest);
  const std::vector<codegen::KernelSource> split = testing::GenerateForHopper({high}).kernels;
  ASSERT_EQ(split.size(), 1u);
  ASSERT_EQ(split[0].tensor_maps.size(), 2u);
  for (const codegen::TensorMapSpec& map : split[0].tensor_maps) EXPECT_EQ(map.dims[2], 2);
  EXPECT_EQ(split[0].workspace_bytes, 2 * 300 * 200 * 4 + 2 * 264 * 200 * 4);
}

// Every Hopper GEMM tile the heuristic picks fits the 227 KB a block may use, with at least
// three stages in flight, and persistent launches cover every tile.
TEST(GemmTilesTest, HopperGemmTilesFitSharedMemory) {
  const Target hopper{9, 0, true};
  for (int64_t m : {16, 128, 1000, 8192}) {
    for (int64_t n : {8, 64, 200, 1024, 14336}) {
      for (bool one_output : {true, false}) {
        SCOPED_TRACE(::testing::Message()
                     << m << " x " << n << (one_output ? "" : ", two outputs"));
        auto in = [](Shape s) {
          return Tensor(MakeInputNode(DType::kBF16, Device::kCPU, s, nullptr));
        };
        Tensor y = matmul(in({m, 256}), in({256, n}));
        std::vector<const Node*> roots = {&y.node()};
        Tensor z = relu(y);
        if (!one_output) roots.push_back(&z.node());
        const std::vector<codegen::KernelSource> ks =
            codegen::PlanAndGenerate(roots, hopper).kernels;
        ASSERT_EQ(ks.size(), 1u);
        ASSERT_EQ(ks[0].launches.size(), 1u);
        const codegen::Launch& l = ks[0].launches[0];
        EXPECT_LE(l.shared_bytes, 227 * 1024);
        EXPECT_EQ(l.persistent_per_sm, 1);
        const size_t at = ks[0].source.find("STAGES = ");
        ASSERT_NE(at, std::string::npos);
        EXPECT_GE(std::stoi(ks[0].source.substr(at + 9)), 3);
        const size_t bn = ks[0].source.find("BN = ");
        const int64_t tile_n = std::stoi(ks[0].source.substr(bn + 5));
        EXPECT_EQ(l.grid[0], (m + 127) / 128 * ((n + tile_n - 1) / tile_n));
      }
    }
  }
}

// 256-wide tiles where their rounds are (nearly) full; 128-wide ones where a last round of
// 256-wide tiles would leave most SMs idle, for one output as for siblings (the rounds on 132
// SMs in the comments), and every tile in bands of 16 tile rows.
TEST(GemmTilesTest, TilesNarrowToWholeWaves) {
  auto bn = [](std::vector<codegen::GemmExtent> outputs) {
    return codegen::ChooseGemmTile(outputs, 1, false, 1, false).bn;
  };
  EXPECT_EQ(bn({{8192, 8192}}), 256);   // 2048 tiles: 15.5 rounds
  EXPECT_EQ(bn({{4096, 4096}}), 256);   // 512: 3.9
  EXPECT_EQ(bn({{8192, 11008}}), 256);  // 2752: 20.8
  EXPECT_EQ(bn({{8192, 6144}}), 256);   // 1536: 11.6, where 128 wide would take 24 rounds
  EXPECT_EQ(bn({{1024, 6144}}), 128);   // 192: 1.45 rounds; 384 of 128: 2.9
  EXPECT_EQ(bn({{1024, 4096}}), 256);   // 128: one round, 4 SMs idle; 256 of 128: two
  EXPECT_EQ(bn({{512, 7936}}), 256);    // 124: one round, 8 idle
  EXPECT_EQ(bn({{512, 7680}}), 128);    // 120: 12 idle; 240 of 128
  EXPECT_EQ(bn({{1536, 4096}}), 128);   // 192; 384 of 128
  EXPECT_EQ(bn({{2560, 4096}}), 128);   // 320: 2.4; 640 of 128: 4.8
  EXPECT_EQ(bn({{1024, 4096}, {1024, 1024}, {1024, 1024}}), 128);  // q/k/v: 192; 384
  EXPECT_EQ(bn({{8192, 4096}, {8192, 1024}, {8192, 1024}}), 256);
  // A tie: the experts' 107 tile rows x 1408 columns, 642 tiles of 256 (5 rounds, the last
  // column half past N) or 1177 of 128 (9 rounds: 1152 columns a SM against 0.9 x 1280).
  const std::vector<codegen::GemmExtent> experts = {{512, 1408},  {4096, 1408}, {1024, 1408},
                                                    {2048, 1408}, {768, 1408},  {3072, 1408},
                                                    {1536, 1408}, {640, 1408}};
  EXPECT_EQ(bn(experts), 128);
  std::vector<codegen::GemmExtent> more = experts;
  more.push_back({128, 1408});  // 108 tile rows: 648 tiles of 256 (5), 1188 of 128 (9)
  EXPECT_EQ(bn(more), 128);
  more.back() = {2560, 1408};  // 127 tile rows: 762 of 256 (6 rounds), 1397 of 128 (11)
  EXPECT_EQ(bn(more), 256);
  EXPECT_EQ(codegen::ChooseGemmTile(8192, 8192, 1, false, 1).group_m, 16);
}

// A dual GEMM of more than two rounds keeps A in L2; one of fewer rounds, or a single GEMM
// of many, loads as before.
TEST(GemmTilesTest, DualGemmsOfManyRoundsKeepAInL2) {
  // A dual GEMM's walk is its first product's tiles; siblings walk both outputs'.
  auto keeps = [](int64_t m, int64_t n, bool dual) {
    std::vector<codegen::GemmExtent> outputs = {{m, n}};
    if (!dual) outputs.push_back({m, n});
    return codegen::ChooseGemmTile(outputs, 1, false, 1, dual).keep_a;
  };
  EXPECT_TRUE(keeps(1024, 11008, true));    // SwiGLU: 688 dual tiles of 128
  EXPECT_TRUE(keeps(8192, 11008, true));    // 5504
  EXPECT_TRUE(keeps(4096, 1160, true));     // 320 (gemm_groups_test's GEGLU)
  EXPECT_FALSE(keeps(4096, 1024, true));    // 256: two rounds
  EXPECT_FALSE(keeps(64, 11008, true));     // 172 tiles of 64 rows
  EXPECT_FALSE(keeps(8192, 11008, false));  // siblings: single GEMMs
  EXPECT_FALSE(codegen::ChooseGemmTile(8192, 8192, 1).keep_a);
}

// Few rows: a wider tile that still gives half the SMs a tile, where it saves a round.
TEST(GemmTilesTest, FewRowsTakeTheWiderTileThatSavesARound) {
  auto bn = [](int64_t m, int64_t n, bool dual) {
    return codegen::ChooseGemmTile({codegen::GemmExtent{m, n}}, 1, false, 1, dual).bn;
  };
  EXPECT_EQ(bn(64, 11008, true), 128);   // SwiGLU: 86 dual tiles, not 172 of 64
  EXPECT_EQ(bn(64, 8448, true), 64);     // 132 of 64 are one round already
  EXPECT_EQ(bn(64, 8704, true), 128);    // 68 against 136
  EXPECT_EQ(bn(64, 14336, false), 128);  // 112 against 224 (256: 56, too few SMs)
  EXPECT_EQ(bn(64, 4096, false), 64);    // 64 tiles: each SM's share is what counts (K slices)
  EXPECT_EQ(bn(48, 11008, true), 128);
  EXPECT_EQ(bn(128, 11008, true), 64);  // 128-row tiles keep every SM busy (DRAM is not all)
}

// Three TF32 products hold two parts of each operand a stage: at most 128 wide, and still
// at least three stages in the 227 KB.
TEST(GemmTilesTest, HopperSplitTf32TilesFitSharedMemory) {
  for (int64_t m : {16, 128, 1000, 8192}) {
    for (int64_t n : {8, 64, 200, 1024, 14336}) {
      SCOPED_TRACE(::testing::Message() << m << " x " << n);
      const codegen::GemmTile t = codegen::ChooseGemmTile(m, n, 1, /*tf32=*/true, /*parts=*/2);
      EXPECT_LE(t.bn, 128);
      EXPECT_GE(t.stages, 3);
      EXPECT_LE(1024 + t.stages * (t.bm + t.bn) * 128 * 2 + 8 * (2 * t.stages + 4), 227 * 1024);
    }
  }
}

}  // namespace
}  // namespace tessel
