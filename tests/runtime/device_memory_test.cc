// The stream-ordered caching allocator against a fake driver (no GPU needed): reuse per
// stream, waits for other streams' readers, stats, the limit and releasing the cache.
#include "runtime/device_memory.h"

#include <map>
#include <vector>

#include "gtest/gtest.h"

namespace tessel::runtime {
namespace {

// What the fake driver saw.
struct Calls {
  CUdeviceptr next = 0x10000;
  int64_t allocated_bytes = 0;
  int allocs = 0, frees = 0, syncs = 0;
  std::vector<std::pair<CUstream, CUstream>> waits;  // (waiter, recorded on)
  CUstream recorded = nullptr;
  int64_t device_bytes = int64_t{1} << 40;  // cuMemAlloc fails past this
  std::map<CUdeviceptr, int64_t> live;
};
Calls* calls = nullptr;

Driver FakeDriver() {
  Driver d;
  d.cuMemAlloc = [](CUdeviceptr* p, size_t bytes) {
    if (calls->allocated_bytes + static_cast<int64_t>(bytes) > calls->device_bytes) {
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *p = calls->next;
    calls->next += bytes;
    calls->allocated_bytes += bytes;
    calls->live[*p] = static_cast<int64_t>(bytes);
    ++calls->allocs;
    return CUDA_SUCCESS;
  };
  d.cuMemFree = [](CUdeviceptr p) {
    calls->allocated_bytes -= calls->live[p];
    calls->live.erase(p);
    ++calls->frees;
    return CUDA_SUCCESS;
  };
  d.cuCtxSynchronize = [] {
    ++calls->syncs;
    return CUDA_SUCCESS;
  };
  d.cuCtxPushCurrent = [](CUcontext) { return CUDA_SUCCESS; };
  d.cuCtxPopCurrent = [](CUcontext*) { return CUDA_SUCCESS; };
  d.cuEventCreate = [](CUevent* e, unsigned) {
    *e = reinterpret_cast<CUevent>(0x1);
    return CUDA_SUCCESS;
  };
  d.cuEventRecord = [](CUevent, CUstream s) {
    calls->recorded = s;
    return CUDA_SUCCESS;
  };
  d.cuStreamWaitEvent = [](CUstream s, CUevent, unsigned) {
    calls->waits.push_back({s, calls->recorded});
    return CUDA_SUCCESS;
  };
  return d;
}

const auto kStreamA = reinterpret_cast<CUstream>(0xa);
const auto kStreamB = reinterpret_cast<CUstream>(0xb);

class DeviceMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override { calls = &calls_; }
  Calls calls_;
  Driver driver_ = FakeDriver();
  DeviceAllocator allocator_{&driver_, nullptr};
};

TEST_F(DeviceMemoryTest, BlocksAreReusedOnTheirOwnStreamOnly) {
  const CUdeviceptr p = *allocator_.Allocate(1000, kStreamA);
  allocator_.Free(p, 1000, kStreamA, {});
  EXPECT_EQ(*allocator_.Allocate(900, kStreamA), p);  // same rounded size, same stream
  allocator_.Free(p, 900, kStreamA, {});
  EXPECT_NE(*allocator_.Allocate(1000, kStreamB), p);  // another stream: a new block
  EXPECT_EQ(calls_.allocs, 2);
  EXPECT_TRUE(calls_.waits.empty());
}

TEST_F(DeviceMemoryTest, ABlockReadOnAnotherStreamWaitsForItBeforeReuse) {
  const CUdeviceptr p = *allocator_.Allocate(4096, kStreamA);
  const CUstream readers[] = {kStreamB};
  allocator_.Free(p, 4096, kStreamA, readers);
  ASSERT_EQ(calls_.waits.size(), 1u);
  EXPECT_EQ(calls_.waits[0].first, kStreamA);   // the owner waits ...
  EXPECT_EQ(calls_.waits[0].second, kStreamB);  // ... for the reader's queued work
  EXPECT_EQ(*allocator_.Allocate(4096, kStreamA), p);
}

TEST_F(DeviceMemoryTest, StatsFollowAllocationsAndTheCache) {
  const int64_t size = DeviceAllocator::RoundUp(3000);
  const CUdeviceptr p = *allocator_.Allocate(3000, kStreamA);
  EXPECT_EQ(allocator_.stats().in_use, size);
  EXPECT_EQ(allocator_.stats().reserved, size);
  allocator_.Free(p, 3000, kStreamA, {});
  EXPECT_EQ(allocator_.stats().in_use, 0);
  EXPECT_EQ(allocator_.stats().reserved, size);
  EXPECT_EQ(allocator_.stats().peak_in_use, size);
  ASSERT_TRUE(allocator_.EmptyCache().ok());
  EXPECT_EQ(allocator_.stats().reserved, 0);
  EXPECT_EQ(calls_.frees, 1);
  EXPECT_GE(calls_.syncs, 1);  // work queued before the free may still use the block
}

TEST_F(DeviceMemoryTest, TheLimitReleasesTheCacheThenRefuses) {
  const CUdeviceptr cached = *allocator_.Allocate(1 << 20, kStreamA);
  allocator_.Free(cached, 1 << 20, kStreamA, {});
  const CUdeviceptr live = *allocator_.Allocate(1 << 20, kStreamB);
  allocator_.set_limit((2 << 20) + (1 << 19));
  // Reserved 2 MiB + 1 MiB would pass the limit: the cached block goes first.
  ASSERT_TRUE(allocator_.Allocate(1 << 20, kStreamB).ok());
  EXPECT_EQ(calls_.frees, 1);
  const absl::StatusOr<CUdeviceptr> refused = allocator_.Allocate(1 << 20, kStreamB);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("memory limit"), std::string::npos);
  allocator_.Free(live, 1 << 20, kStreamB, {});
}

TEST_F(DeviceMemoryTest, TheLimitCountsCachedBlocksHandedOutAgain) {
  const CUdeviceptr kept = *allocator_.Allocate(1 << 20, kStreamA);
  const CUdeviceptr cached = *allocator_.Allocate(4 << 20, kStreamA);
  allocator_.Free(cached, 4 << 20, kStreamA, {});
  allocator_.set_limit((1 << 20) + (1 << 19));
  const absl::StatusOr<CUdeviceptr> refused = allocator_.Allocate(4 << 20, kStreamA);
  ASSERT_FALSE(refused.ok());  // a cache hit, but past the limit all the same
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  allocator_.set_limit(0);
  EXPECT_EQ(*allocator_.Allocate(4 << 20, kStreamA), cached);
  allocator_.Free(kept, 1 << 20, kStreamA, {});
}

TEST_F(DeviceMemoryTest, OutOfMemoryReleasesCachedBlocksAndRetries) {
  calls_.device_bytes = 3 << 20;
  const CUdeviceptr a = *allocator_.Allocate(2 << 20, kStreamA);
  allocator_.Free(a, 2 << 20, kStreamA, {});           // cached, still held from the driver
  auto on_b = allocator_.Allocate(2 << 20, kStreamB);  // fails once, then fits
  ASSERT_TRUE(on_b.ok()) << on_b.status();
  EXPECT_EQ(calls_.frees, 1);
}

}  // namespace
}  // namespace tessel::runtime
