#include "core/shape.h"

#include "gtest/gtest.h"

namespace tessel {
namespace {

TEST(ShapeTest, Basics) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.numel(), 24);
  EXPECT_EQ(s.ToString(), "[2,3,4]");
  EXPECT_EQ(s.Strides(), (Shape::Dims{12, 4, 1}));
  EXPECT_EQ(Shape{}.numel(), 1);
  EXPECT_EQ(Shape{}.ToString(), "[]");
  EXPECT_EQ((Shape{3, 0}).numel(), 0);
}

TEST(ShapeTest, BroadcastsLikeNumPy) {
  EXPECT_EQ(*BroadcastShapes({8, 1, 6, 1}, {7, 1, 5}), (Shape{8, 7, 6, 5}));
  EXPECT_EQ(*BroadcastShapes({5, 4}, {1}), (Shape{5, 4}));
  EXPECT_EQ(*BroadcastShapes({}, {3, 2}), (Shape{3, 2}));
  EXPECT_EQ(*BroadcastShapes({0, 1}, {1, 3}), (Shape{0, 3}));
  absl::StatusOr<Shape> bad = BroadcastShapes({2, 3}, {4});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "dimension 1 of the result: 3 vs 4");
}

TEST(ShapeTest, BroadcastStridesAreZeroOnRepeatedAxes) {
  EXPECT_EQ(BroadcastStrides({3, 1}, {2, 3, 4}), (Shape::Dims{0, 1, 0}));
  EXPECT_EQ(BroadcastStrides({}, {2, 2}), (Shape::Dims{0, 0}));
  EXPECT_EQ(BroadcastStrides({2, 4}, {2, 4}), (Shape::Dims{4, 1}));
}

TEST(ShapeTest, NormalizesAxes) {
  int a;
  ASSERT_TRUE(NormalizeAxis(-1, 3, &a));
  EXPECT_EQ(a, 2);
  ASSERT_TRUE(NormalizeAxis(0, 3, &a));
  EXPECT_EQ(a, 0);
  EXPECT_FALSE(NormalizeAxis(3, 3, &a));
  EXPECT_FALSE(NormalizeAxis(-4, 3, &a));
}

}  // namespace
}  // namespace tessel
