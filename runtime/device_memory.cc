#include "runtime/device_memory.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace tessel::runtime {

int64_t DeviceAllocator::RoundUp(int64_t bytes) {
  bytes = std::max<int64_t>(bytes, 1);
  if (bytes <= (int64_t{1} << 20)) return (bytes + 511) / 512 * 512;
  int64_t power = 1;
  while (power < bytes) power <<= 1;
  const int64_t step = power / 8;
  return (bytes + step - 1) / step * step;
}

absl::StatusOr<CUdeviceptr> DeviceAllocator::Allocate(int64_t bytes, CUstream stream) {
  const int64_t size = RoundUp(bytes);
  bool over_limit = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The limit bounds what is in use, cached blocks handed out again included.
    if (limit_ > 0 && stats_.in_use + size > limit_) {
      return absl::ResourceExhaustedError(
          absl::StrCat("allocating ", size, " bytes on the GPU would pass the memory limit of ",
                       limit_, " bytes ", DescribeMemory(stats_)));
    }
    auto it = free_.find({stream, size});
    if (it != free_.end() && !it->second.empty()) {
      const CUdeviceptr p = it->second.back();
      it->second.pop_back();
      stats_.in_use += size;
      stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use);
      return p;
    }
    over_limit = limit_ > 0 && stats_.reserved + size > limit_;
  }
  // Reserving more would pass the limit: cached blocks go back to the driver first.
  if (over_limit) TESSEL_RETURN_IF_ERROR(ReleaseCached());
  CUdeviceptr p = 0;
  CUresult r = driver_->cuMemAlloc(&p, size);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {  // cached blocks of other sizes or streams may make room
    TESSEL_RETURN_IF_ERROR(ReleaseCached());
    r = driver_->cuMemAlloc(&p, size);
  }
  if (r != CUDA_SUCCESS) {
    const MemoryStats s = stats();
    return CheckCu(r, absl::StrCat("allocating ", size, " bytes on the GPU ", DescribeMemory(s)));
  }
  std::lock_guard<std::mutex> lock(mu_);
  stats_.in_use += size;
  stats_.reserved += size;
  stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use);
  return p;
}

void DeviceAllocator::Free(CUdeviceptr ptr, int64_t bytes, CUstream stream,
                           absl::Span<const CUstream> readers) {
  const int64_t size = RoundUp(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  if (!readers.empty()) {
    // The block's own stream must not reuse it before the readers' queued work has run. One
    // event serves every wait: a wait takes the event's state when it is enqueued.
    ScopedContext scope(driver_, context_);
    if (wait_event_ == nullptr) driver_->cuEventCreate(&wait_event_, CU_EVENT_DISABLE_TIMING);
    for (CUstream reader : readers) {
      driver_->cuEventRecord(wait_event_, reader);
      driver_->cuStreamWaitEvent(stream, wait_event_, 0);
    }
  }
  free_[{stream, size}].push_back(ptr);
  if (holds_ > 0) held_.push_back({{stream, size}, ptr});
  stats_.in_use -= size;
}

void DeviceAllocator::HoldFreedBlocks() {
  std::lock_guard<std::mutex> lock(mu_);
  ++holds_;
}

void DeviceAllocator::ReleaseHeldBlocks() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--holds_ == 0) held_.clear();
}

absl::Status DeviceAllocator::ReleaseCached() {
  std::map<std::pair<CUstream, int64_t>, std::vector<CUdeviceptr>> blocks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks.swap(free_);
    // Held blocks stay cached: kernels that use them may not be queued yet.
    for (const auto& [key, ptr] : held_) {
      std::vector<CUdeviceptr>& ptrs = blocks[key];
      auto it = std::find(ptrs.begin(), ptrs.end(), ptr);
      if (it == ptrs.end()) continue;  // handed out again since
      ptrs.erase(it);
      free_[key].push_back(ptr);
    }
  }
  ScopedContext scope(driver_, context_);
  // Kernels queued before a block was freed may still be using it.
  TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuCtxSynchronize(), "synchronizing to free memory"));
  int64_t released = 0;
  for (auto& [key, ptrs] : blocks) {
    for (CUdeviceptr p : ptrs) {
      driver_->cuMemFree(p);
      released += key.second;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  stats_.reserved -= released;
  return absl::OkStatus();
}

absl::Status DeviceAllocator::EmptyCache() { return ReleaseCached(); }

MemoryStats DeviceAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void DeviceAllocator::set_limit(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  limit_ = std::max<int64_t>(bytes, 0);
}

void DeviceBuffer::AddReader(CUstream stream) {
  if (stream != stream_ && std::find(readers_.begin(), readers_.end(), stream) == readers_.end()) {
    readers_.push_back(stream);
  }
}

void DeviceAllocator::WaitForStreams(CUstream stream, absl::Span<const CUstream> readers) {
  ScopedContext scope(driver_, context_);
  driver_->cuStreamSynchronize(stream);
  for (CUstream reader : readers) driver_->cuStreamSynchronize(reader);
}

DeviceBuffer::~DeviceBuffer() {
  if (!external_) {
    allocator_->Free(ptr_, bytes(), stream_, readers_);
  } else if (release_) {
    allocator_->WaitForStreams(stream_, readers_);
    release_(data());
  }
}

absl::StatusOr<std::shared_ptr<DeviceBuffer>> NewDeviceBuffer(DeviceAllocator& allocator,
                                                              int device_index, DType dtype,
                                                              int64_t numel, CUstream stream) {
  TESSEL_ASSIGN_OR_RETURN(CUdeviceptr p, allocator.Allocate(numel * DTypeSize(dtype), stream));
  return std::make_shared<DeviceBuffer>(dtype, numel, device_index, &allocator, p, stream);
}

}  // namespace tessel::runtime
