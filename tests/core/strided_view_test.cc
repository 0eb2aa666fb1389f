#include "core/strided_view.h"

#include <vector>

#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

// Each element of `view` (over a base whose values are their own positions, 0, 1, 2, ...)
// sits where its layout says.
void ExpectLayoutHolds(const Tensor& view) {
  const std::optional<StridedLayout> l =
      LayoutOverViews(*view.node_ptr(), [](const Node& n) { return n.op() == OpKind::kArange; });
  ASSERT_TRUE(l.has_value()) << PrintGraph({view});
  ASSERT_EQ(l->base->op(), OpKind::kArange);
  const std::vector<double> values = view.to_vector<double>();
  const Shape& shape = view.shape();
  std::vector<int64_t> index(shape.rank(), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t at = l->offset;
    for (int d = 0; d < shape.rank(); ++d) at += index[d] * l->strides[d];
    ASSERT_EQ(values[i], static_cast<double>(at))
        << "element " << i << " of " << PrintGraph({view});
    for (int d = shape.rank() - 1; d >= 0 && ++index[d] == shape[d]; --d) index[d] = 0;
  }
}

Tensor Positions(const Shape& shape) {
  return reshape(arange(shape.numel(), DType::kF32, Device::kCPU), shape);
}

TEST(StridedViewTest, PermutesSlicesReshapesAndBroadcasts) {
  const Tensor x = Positions({6, 4, 8});
  ExpectLayoutHolds(permute(x, {1, 0, 2}));
  ExpectLayoutHolds(permute(x, {2, 0, 1}));
  ExpectLayoutHolds(slice(x, 2, 1, 7, 2));
  ExpectLayoutHolds(permute(reshape(slice(x, 2, 4, 8), {6, 2, 2, 4}), {1, 2, 0, 3}));
  ExpectLayoutHolds(reshape(permute(x, {1, 0, 2}), {4, 3, 2, 8}));  // splits an axis
  ExpectLayoutHolds(reshape(permute(x, {1, 0, 2}), {4, 6, 1, 8}));  // a new axis of extent 1
  ExpectLayoutHolds(reshape(slice(x, 0, 2, 5), {12, 8}));           // merges a contiguous run
  ExpectLayoutHolds(broadcast_to(slice(x, 1, 1, 2), {3, 6, 5, 8}));
  ExpectLayoutHolds(transpose(reshape(Positions({3, 64}), {3, 2, 32})));
  // The language model's heads: columns of a [T, 3 W] matrix as [heads, T, W / heads].
  const Tensor qkv = Positions({5, 96});
  ExpectLayoutHolds(permute(reshape(slice(qkv, 1, 32, 64), {5, 4, 8}), {1, 0, 2}));
}

TEST(StridedViewTest, MergingAxesThatViewsMovedApartIsNoLayout) {
  const Tensor x = Positions({6, 4, 8});
  auto none = [](const Node&) { return false; };
  EXPECT_FALSE(LayoutOverViews(*reshape(permute(x, {1, 0, 2}), {24, 8}).node_ptr(), none));
  EXPECT_FALSE(LayoutOverViews(*reshape(slice(x, 2, 0, 4), {6, 16}).node_ptr(), none));
  EXPECT_FALSE(LayoutOverViews(*flip(x, {0}).node_ptr(), none));
}

TEST(StridedViewTest, StopsWhereAsked) {
  const Tensor x = Positions({6, 4, 8});
  const Tensor p = permute(x, {1, 0, 2});
  const Tensor v = slice(p, 0, 1, 3);
  const std::optional<StridedLayout> l =
      LayoutOverViews(*v.node_ptr(), [&](const Node& n) { return &n == p.node_ptr().get(); });
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->base, p.node_ptr().get());
  EXPECT_EQ(l->offset, 48);
  EXPECT_EQ(l->strides, (std::vector<int64_t>{48, 8, 1}));
}

// Axes of extent 1 and broadcast axes leave; neighbours that step as one merge.
TEST(StridedViewTest, MemoryAxesMergeNeighboursThatStepAsOne) {
  // [B=2, H=3, S=5, D=8] permuted out of [B, S, H, D]: H steps by 8, S by 24, B by 120.
  const Shape shape({2, 3, 1, 5, 8});
  const std::vector<int64_t> strides = {120, 8, 0, 24, 1};
  const std::vector<MemoryAxis> heads = MemoryAxes(shape, strides, {0, 1, 2});
  ASSERT_EQ(heads.size(), 2u);  // B and H do not step as one
  EXPECT_EQ(heads[0].stride, 120);
  EXPECT_EQ(heads[1].stride, 8);
  // S then D: one run of 40 elements.
  const std::vector<MemoryAxis> rows = MemoryAxes(shape, {120, 8, 0, 8, 1}, {3, 4});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].extent, 40);
  EXPECT_EQ(rows[0].stride, 1);
  EXPECT_EQ(rows[0].axes, (std::vector<int>{3, 4}));
}

}  // namespace
}  // namespace tessel
