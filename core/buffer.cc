#include "core/buffer.h"

#include <cstdlib>
#include <new>

#include "core/error.h"
#include "core/memory.h"

namespace tessel {

HostBuffer::HostBuffer(DType dtype, int64_t numel) : Buffer(Device::kCPU, dtype, numel) {
  constexpr size_t kAlign = 64;
  const size_t bytes = static_cast<size_t>(this->bytes());
  const size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  AcquireHostMemory(static_cast<int64_t>(bytes));
  data_ = std::aligned_alloc(kAlign, rounded == 0 ? kAlign : rounded);
  if (data_ == nullptr) {
    ReleaseHostMemory(static_cast<int64_t>(bytes));
    ThrowOpError("allocate", "out of host memory allocating ", bytes, " bytes");
  }
}

HostBuffer::~HostBuffer() {
  std::free(data_);
  ReleaseHostMemory(bytes());
}

std::shared_ptr<HostBuffer> NewHostBuffer(DType dtype, int64_t numel) {
  return std::make_shared<HostBuffer>(dtype, numel);
}

}  // namespace tessel
