// Device memory of one device: a stream-ordered caching allocator and the Buffer type that
// returns its block on destruction.
//
// [ Note -- stream-ordered reuse ]
// cuMemAlloc per tensor would dominate small graphs, so freed blocks are cached by size and
// reused. A block is freed when its last tensor dies, which may be before the kernels that
// use it have run: it goes back to the free list of the stream it was allocated on, where
// stream order makes reuse safe (the next kernel on that stream runs after the last one that
// used it). Kernels on other streams that read the buffer are recorded; when such a block is
// freed, its stream waits for the work queued on those streams so far (conservative: all of
// it, not only the reads). Blocks never move between streams' lists; releasing the cache
// (empty_cache, out of memory, the limit) synchronizes the device first.
#ifndef TESSEL_RUNTIME_DEVICE_MEMORY_H_
#define TESSEL_RUNTIME_DEVICE_MEMORY_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "core/buffer.h"
#include "core/memory.h"
#include "runtime/cuda_driver.h"

namespace tessel::runtime {

class DeviceAllocator {
 public:
  // Its owner keeps it for the life of the process: buffers may outlive main.
  DeviceAllocator(const Driver* driver, CUcontext context) : driver_(driver), context_(context) {}

  // A block of at least `bytes` for work on `stream`. The context must be current.
  absl::StatusOr<CUdeviceptr> Allocate(int64_t bytes, CUstream stream);
  // Returns a block; `readers`: other streams whose queued work may still read it.
  void Free(CUdeviceptr ptr, int64_t bytes, CUstream stream, absl::Span<const CUstream> readers);
  // Waits for the work queued on `stream` and `readers` (before memory tessel does not own
  // goes back to its owner).
  void WaitForStreams(CUstream stream, absl::Span<const CUstream> readers);
  // Synchronizes the device and returns every cached block to the driver (but those held).
  absl::Status EmptyCache();
  // While held (calls nest), blocks freed stay cached, never returned to the driver: a plan
  // frees some before it queues the kernels that use them (backend/plan_graph.h), which
  // stream order makes safe for reuse on that stream, but not for cuMemFree.
  void HoldFreedBlocks();
  void ReleaseHeldBlocks();

  MemoryStats stats() const;
  void set_limit(int64_t bytes);

  // Block sizes: multiples of 512 bytes up to 1 MB, then of 1/8 of the next power of two, so
  // that similar sizes share blocks without wasting more than a quarter of the request.
  static int64_t RoundUp(int64_t bytes);

 private:
  absl::Status ReleaseCached();  // mu_ not held

  const Driver* driver_;
  CUcontext context_;
  mutable std::mutex mu_;
  std::map<std::pair<CUstream, int64_t>, std::vector<CUdeviceptr>> free_;
  MemoryStats stats_;
  int64_t limit_ = 0;  // 0: none
  CUevent wait_event_ = nullptr;
  int holds_ = 0;
  std::vector<std::pair<std::pair<CUstream, int64_t>, CUdeviceptr>> held_;  // freed while held
};

// HoldFreedBlocks for a scope.
class HeldFrees {
 public:
  explicit HeldFrees(DeviceAllocator& allocator) : allocator_(allocator) {
    allocator_.HoldFreedBlocks();
  }
  ~HeldFrees() { allocator_.ReleaseHeldBlocks(); }
  HeldFrees(const HeldFrees&) = delete;
  HeldFrees& operator=(const HeldFrees&) = delete;

 private:
  DeviceAllocator& allocator_;
};

class DeviceBuffer : public Buffer {
 public:
  DeviceBuffer(DType dtype, int64_t numel, int device_index, DeviceAllocator* allocator,
               CUdeviceptr ptr, CUstream stream)
      : Buffer(Device::kCUDA, dtype, numel, device_index),
        allocator_(allocator),
        ptr_(ptr),
        stream_(stream) {}
  // Memory tessel does not own (from_blob): never returned to the allocator; `release`, if
  // set, runs with the pointer once the queued work using the buffer has finished.
  DeviceBuffer(DType dtype, int64_t numel, int device_index, DeviceAllocator* allocator,
               CUdeviceptr ptr, CUstream stream, std::function<void(void*)> release)
      : DeviceBuffer(dtype, numel, device_index, allocator, ptr, stream) {
    external_ = true;
    release_ = std::move(release);
  }
  ~DeviceBuffer() override;
  void* data() override { return reinterpret_cast<void*>(ptr_); }
  CUdeviceptr ptr() const { return ptr_; }
  // The stream whose work writes the buffer: readers on other streams wait for it.
  CUstream stream() const { return stream_; }
  // Notes that work on `stream` reads the buffer (for the allocator's reuse rule).
  void AddReader(CUstream stream);
  absl::Span<const CUstream> readers() const { return readers_; }

 private:
  DeviceAllocator* allocator_;
  CUdeviceptr ptr_;
  CUstream stream_;
  absl::InlinedVector<CUstream, 1> readers_;  // other streams
  bool external_ = false;
  std::function<void(void*)> release_;
};

// A buffer of `numel` elements of `dtype` for work on `stream`.
absl::StatusOr<std::shared_ptr<DeviceBuffer>> NewDeviceBuffer(DeviceAllocator& allocator,
                                                              int device_index, DType dtype,
                                                              int64_t numel, CUstream stream);

}  // namespace tessel::runtime

#endif  // TESSEL_RUNTIME_DEVICE_MEMORY_H_
