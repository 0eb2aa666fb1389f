// Devices, streams and memory through the public API, on the CPU (the GPU side is in
// tests/gpu/stream_test.cc).
#include <cstdlib>

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::ExpectError;

class ExecutionTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("TESSEL_DEVICE", "cpu", 1); }
  void TearDown() override {
    set_memory_limit(0);
    unsetenv("TESSEL_DEVICE");
  }
};

TEST_F(ExecutionTest, DevicesOutOfRangeAreErrors) {
  const int count = device_count();
  ExpectError([&] { set_device(count); }, {"tessel::set_device: device", "does not exist"});
  ExpectError([] { set_device(-1); }, {"tessel::set_device: device -1 does not exist"});
  EXPECT_EQ(current_device(), 0);
  EXPECT_EQ(device_index(full({2}, 1.0, DType::kF32, Device::kCPU)), 0);
}

TEST_F(ExecutionTest, GuardsMakeStreamsCurrentAndRestoreThePrevious) {
  const Stream main = Stream::current();
  EXPECT_EQ(main.id(), 0);
  const Stream a = Stream::create(), b = Stream::create();
  EXPECT_NE(a, b);
  EXPECT_NE(a, main);
  {
    StreamGuard guard(a);
    EXPECT_EQ(Stream::current(), a);
    {
      StreamGuard inner(b);
      EXPECT_EQ(Stream::current(), b);
    }
    EXPECT_EQ(Stream::current(), a);
    // Work runs under a guard and the stream can be waited for.
    const Tensor y = from_vector({1, 2, 3}, {3}, DType::kF32, Device::kCPU) * 2.0;
    realize({y});
    a.synchronize();
    EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2, 4, 6}));
  }
  EXPECT_EQ(Stream::current(), main);
  EXPECT_EQ(main.cuda_stream(), nullptr);
}

TEST_F(ExecutionTest, MemoryStatsCountLiveBuffers) {
  const MemoryStats before = memory_stats();
  {
    Tensor x = full({1000}, 2.0, DType::kF32, Device::kCPU) + 1.0;
    realize({x});
    const MemoryStats during = memory_stats();
    EXPECT_EQ(during.in_use - before.in_use, 4000);
    EXPECT_GE(during.peak_in_use, during.in_use);
    EXPECT_GE(during.reserved, during.in_use);
  }
  EXPECT_EQ(memory_stats().in_use, before.in_use);
  empty_cache();
}

TEST_F(ExecutionTest, AllocationsPastTheLimitFailAndLoseNothing) {
  Tensor kept = full({100}, 3.0, DType::kF32, Device::kCPU) * 2.0;
  realize({kept});
  set_memory_limit(memory_stats().in_use + 1000);
  const Tensor big = full({1000}, 1.0, DType::kF32, Device::kCPU) + 1.0;
  ExpectError([&] { realize({big}); }, {"allocating 4000 bytes", "limit"});
  EXPECT_EQ(kept.to_vector<float>()[99], 6.0f);
  EXPECT_FALSE(big.realized());
  set_memory_limit(0);
  EXPECT_EQ(big.to_vector<float>()[999], 2.0f);
  ExpectError([] { set_memory_limit(-1); }, {"tessel::set_memory_limit", "-1"});
}

// An allocation that fails (here: more than the system has) counts toward neither in_use nor
// its peak.
TEST_F(ExecutionTest, AFailedAllocationLeavesThePeak) {
  const MemoryStats before = memory_stats();
  const Tensor huge = broadcast_to(full({}, 1.0, DType::kF32, Device::kCPU), {int64_t{1} << 58});
  ExpectError([&] { realize({huge + 1.0}); }, {"out of host memory"});
  EXPECT_EQ(memory_stats().in_use, before.in_use);
  EXPECT_EQ(memory_stats().peak_in_use, before.peak_in_use);
}

}  // namespace
}  // namespace tessel
