// TransposedAccess: which axes a pointwise kernel tiles, from how its inputs are laid out.
#include "fusion/access.h"

#include "core/realize.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

Tensor In(Shape shape, DType dtype = DType::kF32) {
  return from_vector(std::vector<float>(shape.numel()), shape, dtype, Device::kCPU);
}

// The axes of the one kernel computing `out` ({-1, -1}: not tiled).
std::pair<int, int> AxesOf(const Tensor& out, int64_t min_extent = 32) {
  const FusionPlan plan = PlanFusion(CollectProgram({&out.node()}));
  EXPECT_EQ(plan.kernels.size(), 1u);
  const TransposedAxes axes = TransposedAccess(plan.kernels[0], min_extent);
  return {axes.along, axes.across};
}

TEST(AccessTest, TransposeTilesItsTwoAxes) {
  EXPECT_EQ(AxesOf(transpose(In({64, 48})) + 1.0), std::make_pair(0, 1));
  EXPECT_EQ(AxesOf(exp(transpose(In({64, 48}, DType::kBF16)))), std::make_pair(0, 1));
}

TEST(AccessTest, ContiguousReadsAreNotTiled) {
  EXPECT_EQ(AxesOf(In({64, 48}) + 1.0), std::make_pair(-1, -1));
  // The contiguous axis stays innermost.
  EXPECT_EQ(AxesOf(permute(In({4, 64, 8, 64}), {0, 2, 1, 3}) * 2.0), std::make_pair(-1, -1));
}

TEST(AccessTest, TheLayoutOfMostBytesDecides) {
  // As many bytes read each way: the outputs' order stays.
  EXPECT_EQ(AxesOf(transpose(In({64, 48})) + In({48, 64})), std::make_pair(-1, -1));
  EXPECT_EQ(AxesOf(transpose(In({64, 48})) * transpose(In({64, 48})) + In({48, 64})),
            std::make_pair(0, 1));
  // A broadcast row along the outputs' axis is small next to the transposed input.
  EXPECT_EQ(AxesOf(transpose(In({70, 45})) + In({1, 70})), std::make_pair(0, 1));
}

TEST(AccessTest, PermutesReshapesAndShortAxes) {
  // [2, 40, 3, 33] -> [2, 33, 40, 3]: x's contiguous axis is the result's axis 1; the
  // innermost axis (3) is shorter than a tile.
  const Tensor p = permute(In({2, 40, 3, 33}), {0, 3, 1, 2}) + 1.0;
  EXPECT_EQ(AxesOf(p), std::make_pair(-1, -1));
  EXPECT_EQ(AxesOf(p, 1), std::make_pair(1, 3));
  EXPECT_EQ(AxesOf(permute(In({64, 16, 128}), {2, 1, 0}) * 2.0), std::make_pair(0, 2));
  // [64, 48] transposed to [48, 64], split to [48, 8, 8]: x's contiguous axis (48) is axis 0.
  EXPECT_EQ(AxesOf(reshape(transpose(In({64, 48})), {48, 8, 8}) + 1.0, 8), std::make_pair(0, 2));
}

}  // namespace
}  // namespace tessel
