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

absl::StatusOr<CUdeviceptr> DeviceAllocator::Allocate(int64_t bytes) {
  const int64_t size = RoundUp(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(size);
    if (it != free_.end() && !it->second.empty()) {
      const CUdeviceptr p = it->second.back();
      it->second.pop_back();
      return p;
    }
  }
  TESSEL_ASSIGN_OR_RETURN(const Driver* d, GetDriver());
  CUdeviceptr p = 0;
  CUresult r = d->cuMemAlloc(&p, size);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    Trim();  // cached blocks of other sizes may make room
    r = d->cuMemAlloc(&p, size);
  }
  TESSEL_RETURN_IF_ERROR(CheckCu(r, absl::StrCat("allocating ", size, " bytes on the GPU")));
  return p;
}

void DeviceAllocator::Free(CUdeviceptr ptr, int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  free_[RoundUp(bytes)].push_back(ptr);
}

void DeviceAllocator::Trim() {
  std::map<int64_t, std::vector<CUdeviceptr>> blocks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks.swap(free_);
  }
  auto d = GetDriver();
  if (!d.ok()) return;
  for (auto& [size, ptrs] : blocks) {
    for (CUdeviceptr p : ptrs) (*d)->cuMemFree(p);
  }
}

DeviceAllocator& GlobalDeviceAllocator() {
  static DeviceAllocator* allocator = new DeviceAllocator();
  return *allocator;
}

DeviceBuffer::~DeviceBuffer() { GlobalDeviceAllocator().Free(ptr_, bytes()); }

absl::StatusOr<std::shared_ptr<DeviceBuffer>> NewDeviceBuffer(DType dtype, int64_t numel) {
  TESSEL_ASSIGN_OR_RETURN(CUdeviceptr p,
                          GlobalDeviceAllocator().Allocate(numel * DTypeSize(dtype)));
  return std::make_shared<DeviceBuffer>(dtype, numel, p);
}

}  // namespace tessel::runtime
