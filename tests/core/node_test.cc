#include "core/node.h"

#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

TEST(NodeTest, EqualSubexpressionsAreOneNode) {
  Tensor x = from_vector({1, 2, 3}, {3}, DType::kF32, Device::kCPU);
  Tensor a = exp(x) * 2.0;
  Tensor b = exp(x) * 2.0;
  EXPECT_EQ(a.node_ptr(), b.node_ptr());
  EXPECT_NE((exp(x) * 3.0).node_ptr(), a.node_ptr());
  EXPECT_EQ(sum(x, {0}).node_ptr(), sum(x, {-1}).node_ptr());
  EXPECT_NE(sum(x, {0}, true).node_ptr(), sum(x, {0}).node_ptr());
}

TEST(NodeTest, LeavesAreNeverMerged) {
  Tensor x = from_vector({1, 2}, {2}, DType::kF32, Device::kCPU);
  Tensor y = from_vector({1, 2}, {2}, DType::kF32, Device::kCPU);
  EXPECT_NE(x.node_ptr(), y.node_ptr());
  EXPECT_NE((x + 1.0).node_ptr(), (y + 1.0).node_ptr());
}

TEST(NodeTest, NegativeZeroIsADifferentConstant) {
  EXPECT_NE(full({}, 0.0, DType::kF32, Device::kCPU).node_ptr(),
            full({}, -0.0, DType::kF32, Device::kCPU).node_ptr());
  EXPECT_EQ(full({2}, 1.5, DType::kF32, Device::kCPU).node_ptr(),
            full({2}, 1.5, DType::kF32, Device::kCPU).node_ptr());
}

TEST(NodeTest, GraphsAreFreedWhenTheLastHandleGoes) {
  const int64_t before = LiveNodeCount();
  {
    Tensor x = from_vector({1, 2, 3}, {3}, DType::kF32, Device::kCPU);
    Tensor y = exp(x) + x * 2.0;
    EXPECT_GT(LiveNodeCount(), before);
  }
  EXPECT_EQ(LiveNodeCount(), before);
}

TEST(NodeTest, DeepChainsAreFreedWithoutRecursion) {
  const int64_t before = LiveNodeCount();
  {
    Tensor x = zeros({1}, DType::kF32, Device::kCPU);
    for (int i = 0; i < 200000; ++i) x = x + 1.0;
  }
  EXPECT_EQ(LiveNodeCount(), before);
}

TEST(NodeTest, ARecordedNodeComesBackAfterItsTwinDied) {
  Tensor x = from_vector({1, 2}, {2}, DType::kF32, Device::kCPU);
  { Tensor tmp = exp(x); }
  Tensor again = exp(x);
  EXPECT_FLOAT_EQ(again.to_vector<float>()[1], std::exp(2.0f));
}

}  // namespace
}  // namespace tessel
