// from_blob, data_ptr and to on the CPU (the GPU side: tests/gpu/gpu_test.cc).
#include "ops/interop.h"

#include <vector>

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::ExpectError;

TEST(InteropTest, FromBlobReadsTheUsersMemoryAndCallsTheDeleterLast) {
  std::vector<float> memory = {1, 2, 3, 4, 5, 6};
  bool deleted = false;
  Tensor y;
  {
    Tensor x = from_blob(memory.data(), {2, 3}, DType::kF32, Device::kCPU,
                         [&](void* p) { deleted = p == memory.data(); });
    EXPECT_EQ(data_ptr(x), memory.data());  // no copy
    y = sum(x, {1}) * 2.0;                  // recorded: reads the memory when realized
  }
  EXPECT_FALSE(deleted);  // y still needs it
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{12, 30}));
  EXPECT_TRUE(deleted);  // y is realized: its producers, and the memory, are let go
}

TEST(InteropTest, FromBlobOfEveryDtype) {
  std::vector<int32_t> ints = {-1, 7};
  EXPECT_EQ((from_blob(ints.data(), {2}, DType::kI32, Device::kCPU) + 1).to_vector<int32_t>(),
            (std::vector<int32_t>{0, 8}));
  std::vector<uint8_t> bools = {1, 0};
  EXPECT_EQ(
      logical_not(from_blob(bools.data(), {2}, DType::kBool, Device::kCPU)).to_vector<uint8_t>(),
      (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(from_blob(nullptr, {0, 3}, DType::kF16, Device::kCPU).shape(), Shape({0, 3}));
}

TEST(InteropTest, DataPtrRealizesAndToMovesValues) {
  Tensor x = from_vector({1.5f, -2}, {2}, DType::kF32, Device::kCPU) * 2.0;
  const auto* p = static_cast<const float*>(data_ptr(x));
  EXPECT_TRUE(x.realized());
  EXPECT_EQ(p[0], 3.0f);
  EXPECT_EQ(p[1], -4.0f);
  EXPECT_EQ(to(x, Device::kCPU).node_ptr(), x.node_ptr());
  if (!GetBackend(Device::kCUDA).ok()) {
    ExpectError([&] { to(x, Device::kCUDA); }, {"tessel::to:", "f32[2]"});
  }
}

TEST(InteropTest, BadCalls) {
  float one = 1;
  ExpectError([&] { from_blob(&one, {-1}, DType::kF32, Device::kCPU); },
              {"tessel::from_blob:", "negative"});
  ExpectError([&] { from_blob(nullptr, {2}, DType::kF32, Device::kCPU); },
              {"tessel::from_blob:", "null data", "f32[2]"});
  // Host memory as device memory: refused (without a GPU: the device is unavailable).
  alignas(16) float four[4] = {};
  ExpectError([&] { from_blob(four, {4}, DType::kF32, Device::kCUDA); },
              {"tessel::from_blob:", "f32[4]"});
  ExpectError([&] { from_blob(four + 1, {3}, DType::kF32, Device::kCUDA); },
              {"tessel::from_blob:", "not 16-byte aligned", "f32[3]"});
  ExpectError([] { data_ptr(Tensor()); }, {"tessel::data_ptr"});
  ExpectError([] { to(Tensor(), Device::kCPU); }, {"tessel::to"});
}

}  // namespace
}  // namespace tessel
