// Device memory for the CUDA backend: a caching allocator (freed blocks are kept by size and
// reused, as cudaMalloc per tensor would dominate small graphs) and the Buffer type that
// returns its block on destruction. Runtime layer.
#ifndef TESSEL_RUNTIME_DEVICE_MEMORY_H_
#define TESSEL_RUNTIME_DEVICE_MEMORY_H_

#include <map>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"
#include "core/buffer.h"

namespace tessel::runtime {

class DeviceAllocator {
 public:
  absl::StatusOr<CUdeviceptr> Allocate(int64_t bytes);
  void Free(CUdeviceptr ptr, int64_t bytes);
  // Returns every cached block to the driver.
  void Trim();

  // Block sizes: multiples of 512 bytes, then of 1/8 of the next power of two, so that
  // similar sizes share blocks without wasting more than 12.5%.
  static int64_t RoundUp(int64_t bytes);

 private:
  std::mutex mu_;
  std::map<int64_t, std::vector<CUdeviceptr>> free_;
};

DeviceAllocator& GlobalDeviceAllocator();

class DeviceBuffer : public Buffer {
 public:
  DeviceBuffer(DType dtype, int64_t numel, CUdeviceptr ptr)
      : Buffer(Device::kCUDA, dtype, numel), ptr_(ptr) {}
  ~DeviceBuffer() override;
  void* data() override { return reinterpret_cast<void*>(ptr_); }
  CUdeviceptr ptr() const { return ptr_; }

 private:
  CUdeviceptr ptr_;
};

absl::StatusOr<std::shared_ptr<DeviceBuffer>> NewDeviceBuffer(DType dtype, int64_t numel);

}  // namespace tessel::runtime

#endif  // TESSEL_RUNTIME_DEVICE_MEMORY_H_
