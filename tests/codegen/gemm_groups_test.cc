// Kernels of several GEMMs on sm_90a (fusion/gemm_groups.cc, codegen/gemm_sm90_codegen.cc):
// their grids cover every tile, their parameters fit the classic 4 KB, dual tiles fit shared
// memory, and a program whose batch varies plans without grouped GEMMs rather than compiling
// per batch size. (NVRTC compiles them in codegen_test's corpus; gemm_test runs them.)
#include <vector>

#include "codegen/gemm_common.h"
#include "codegen/gemm_sm90_tiles.h"
#include "codegen/generate.h"
#include "core/realize.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/codegen/hopper_plans.h"

namespace tessel {
namespace {

using testing::kHopper;
Tensor In(Shape shape, DType dtype = DType::kBF16) { return testing::Placeholder(shape, dtype); }
codegen::GeneratedPlan Generate(const std::vector<Tensor>& outputs) {
  return testing::GenerateForHopper(outputs);
}

// Bytes of a kernel's parameters: a pointer a buffer, 128 a tensor map, 8 a scalar at most.
int64_t ParameterBytes(const codegen::KernelSource& k) {
  return 8 * static_cast<int64_t>(k.inputs.size() + k.outputs.size()) +
         128 * static_cast<int64_t>(k.tensor_maps.size()) +
         8 * static_cast<int64_t>(k.scalars.size());
}

TEST(GemmGroupsTest, ExpertsAreOneGroupedLaunchCoveringEveryTile) {
  // Eight experts of 64 rows or fewer (64-row tiles), N = 1408 in 64-wide tiles (22 a row).
  const std::vector<int64_t> rows = {1, 50, 7, 33, 12, 2, 45, 20};
  std::vector<Tensor> x, w;
  for (int64_t m : rows) {
    x.push_back(In({m, 2048}));
    w.push_back(In({2048, 1408}));
  }
  const codegen::GeneratedPlan g = Generate(grouped_matmul(x, w));
  ASSERT_EQ(g.kernels.size(), 1u);
  EXPECT_EQ(g.plan.kernels[0].gemm_form, GemmForm::kGrouped);
  const codegen::KernelSource& k = g.kernels[0];
  EXPECT_NE(k.source.find("GROUPED = true"), std::string::npos) << k.source;
  const codegen::GemmTile tile = codegen::ChooseGemmTile(
      {{1, 1408}, {50, 1408}, {7, 1408}, {33, 1408}, {12, 1408}, {2, 1408}, {45, 1408}, {20, 1408}},
      1, false, 1, false);
  EXPECT_EQ(tile.bm, 64);
  EXPECT_EQ(k.launches.at(0).grid[0], 8 * codegen::CeilDiv(1408, tile.bn));
  EXPECT_EQ(k.tensor_maps.size(), 24u);  // A, B and the output (stored by TMA) of each
  EXPECT_LE(ParameterBytes(k), 4096);
}

TEST(GemmGroupsTest, SiblingAndDualGridsCoverEveryTile) {
  const Tensor x = In({300, 128});
  const codegen::GeneratedPlan siblings =
      Generate({matmul(x, In({128, 256})), gelu(matmul(x, In({128, 136})))});
  ASSERT_EQ(siblings.kernels.size(), 1u);
  const codegen::GemmTile tile =
      codegen::ChooseGemmTile({{300, 256}, {300, 136}}, 1, false, 1, false);
  EXPECT_EQ(siblings.kernels[0].launches.at(0).grid[0],
            3 * (codegen::CeilDiv(256, tile.bn) + codegen::CeilDiv(136, tile.bn)));
  const codegen::GeneratedPlan dual =
      Generate({silu(matmul(x, In({128, 4096}))) * matmul(x, In({128, 4096}))});
  ASSERT_EQ(dual.kernels.size(), 1u);
  const codegen::GemmTile dual_tile =
      codegen::ChooseGemmTile({{300, 4096}}, 1, false, 1, /*dual=*/true);
  EXPECT_LE(dual_tile.bn, 128);  // two accumulators in one 256-wide tile's registers
  EXPECT_GE(dual_tile.stages, 3);
  EXPECT_EQ(dual.kernels[0].launches.at(0).grid[0], 3 * codegen::CeilDiv(4096, dual_tile.bn));
  EXPECT_LE(dual.kernels[0].launches.at(0).shared_bytes, 227 * 1024);
}

TEST(GemmGroupsTest, AVaryingBatchPlansWithoutGroupedGemms) {
  // Two independent GEMMs over the batch: grouped when static; with the batch as the rows
  // argument, planned apart (each takes the rows) instead of specialized per batch size.
  const Tensor x1 = In({777, 128}), x2 = In({777, 64});
  const Tensor y1 = matmul(x1, In({128, 256})), y2 = matmul(x2, In({64, 128}));
  ASSERT_EQ(Generate({y1, y2}).kernels.size(), 1u);
  const Program program = CollectProgram({&y1.node(), &y2.node()});
  codegen::DynamicRows rows;
  for (const Node* n : program.nodes) {
    if (n->shape().rank() == 2 && n->shape()[0] == 777) rows.nodes.insert(n);
  }
  rows.max = 1023;
  const codegen::GeneratedPlan g = codegen::PlanAndGenerateWithRows(program, kHopper, rows);
  EXPECT_TRUE(g.specialized.empty());
  ASSERT_EQ(g.kernels.size(), 2u);
  for (const codegen::KernelSource& k : g.kernels) EXPECT_TRUE(k.takes_rows) << k.source;
}

}  // namespace
}  // namespace tessel
