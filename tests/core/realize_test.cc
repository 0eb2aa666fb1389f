#include "core/realize.h"

#include "core/stats.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

int64_t Evaluated() { return GetStats().nodes_evaluated.load(); }

Tensor Vec(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return from_vector(v, {n}, DType::kF32, Device::kCPU);
}

TEST(RealizeTest, SharedSubexpressionsAreEvaluatedOnce) {
  Tensor x = Vec({1, 2, 3});
  Tensor shared = exp(x) * 2.0;   // full(2), exp, mul
  Tensor a = shared + 1.0;        // full(1), add
  Tensor b = shared * shared;     // mul
  Tensor c = exp(x) * 2.0 - 1.0;  // the same `shared` node again, plus full(1) (shared), sub
  const int64_t before = Evaluated();
  realize({a, b, c});
  // full(2), exp, mul, full(1), add, mul, sub: each once.
  EXPECT_EQ(Evaluated() - before, 7);
  EXPECT_FLOAT_EQ(b.to_vector<float>()[0], 4 * std::exp(1.0f) * std::exp(1.0f));
  EXPECT_FLOAT_EQ(c.to_vector<float>()[2], 2 * std::exp(3.0f) - 1);
}

TEST(RealizeTest, RealizedValuesAreNotRecomputed) {
  Tensor x = Vec({1, 2});
  Tensor y = exp(x);
  realize({y});
  const int64_t before = Evaluated();
  Tensor z = y + 1.0;
  realize({z, y});
  EXPECT_EQ(Evaluated() - before, 2);  // full(1) and add; y is already a leaf
  // Recording the same expression again finds the realized node.
  EXPECT_TRUE(exp(x).realized());
}

TEST(RealizeTest, CopiesShareRealization) {
  Tensor x = Vec({4, 9});
  Tensor y = sqrt(x);
  Tensor copy = y;
  EXPECT_FALSE(copy.realized());
  realize({y});
  EXPECT_TRUE(copy.realized());
  EXPECT_EQ(copy.to_vector<float>(), (std::vector<float>{2, 3}));
}

TEST(RealizeTest, RealizedTensorsDropTheirProducers) {
  const int64_t before = LiveNodeCount();
  Tensor y;
  {
    Tensor x = Vec({1, 2, 3});
    y = sum(exp(x) * x);
    EXPECT_GE(LiveNodeCount() - before, 4);
  }
  realize({y});
  EXPECT_TRUE(y.node().inputs().empty());
  EXPECT_EQ(LiveNodeCount() - before, 1);
}

TEST(RealizeTest, DeepChainsRealize) {
  Tensor x = zeros({2}, DType::kF32, Device::kCPU);
  for (int i = 0; i < 100000; ++i) x = x + 1.0;
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{100000, 100000}));
}

TEST(RealizeTest, ProgramListsProducersFirst) {
  Tensor x = Vec({1});
  Tensor a = exp(x);
  Tensor b = a + a;
  Program p = CollectProgram({&b.node(), &a.node(), &b.node()});
  ASSERT_EQ(p.nodes.size(), 2u);  // x is realized: a leaf, not in the program
  EXPECT_EQ(p.nodes[0], &a.node());
  EXPECT_EQ(p.nodes[1], &b.node());
  ASSERT_EQ(p.outputs.size(), 2u);  // distinct outputs, in order
  EXPECT_EQ(p.outputs[0], &b.node());
}

TEST(RealizeTest, EmptyHandlesAreRejected) {
  try {
    realize({Tensor()});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "tessel::realize: the tensor is empty (default-constructed)");
  }
}

TEST(RealizeTest, DefaultDeviceFollowsTheEnvironment) {
  setenv("TESSEL_DEVICE", "cpu", 1);
  EXPECT_EQ(default_device(), Device::kCPU);
  setenv("TESSEL_DEVICE", "tpu", 1);
  EXPECT_THROW(default_device(), Error);
  unsetenv("TESSEL_DEVICE");
  // The GPU when one is usable, else the CPU.
  EXPECT_EQ(default_device(), GetBackend(Device::kCUDA).ok() ? Device::kCUDA : Device::kCPU);
}

}  // namespace
}  // namespace tessel
