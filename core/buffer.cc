#include "core/buffer.h"

#include "core/error.h"
#include "core/memory.h"

namespace tessel {

HostBuffer::HostBuffer(DType dtype, int64_t numel)
    : Buffer(Device::kCPU, dtype, numel), data_(AllocateHostMemory(bytes())) {}

HostBuffer::~HostBuffer() { FreeHostMemory(data_, bytes()); }

std::shared_ptr<HostBuffer> NewHostBuffer(DType dtype, int64_t numel) {
  return std::make_shared<HostBuffer>(dtype, numel);
}

}  // namespace tessel
