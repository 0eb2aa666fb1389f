// Buffers: the memory behind a realized node. Graph -> realize: a backend returns one per
// output it computes; the node then holds it and drops its producers.
#ifndef TESSEL_CORE_BUFFER_H_
#define TESSEL_CORE_BUFFER_H_

#include <cstdint>
#include <memory>

#include "core/dtype.h"

namespace tessel {

class Buffer {
 public:
  Buffer(Device device, DType dtype, int64_t numel, int device_index = 0)
      : device_(device), device_index_(device_index), dtype_(dtype), numel_(numel) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  Device device() const { return device_; }
  int device_index() const { return device_index_; }
  DType dtype() const { return dtype_; }
  int64_t numel() const { return numel_; }
  int64_t bytes() const { return numel_ * DTypeSize(dtype_); }

  // Host pointer for CPU buffers, device pointer for device buffers.
  virtual void* data() = 0;
  const void* data() const { return const_cast<Buffer*>(this)->data(); }

 private:
  Device device_;
  int device_index_;
  DType dtype_;
  int64_t numel_;
};

using BufferPtr = std::shared_ptr<Buffer>;

// Host memory, 64-byte aligned so that Eigen's vectorized paths apply. Not zero-filled.
class HostBuffer : public Buffer {
 public:
  HostBuffer(DType dtype, int64_t numel);
  ~HostBuffer() override;
  void* data() override { return data_; }

  template <typename T>
  T* as() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* as() const {
    return static_cast<const T*>(data_);
  }

 private:
  void* data_;
};

std::shared_ptr<HostBuffer> NewHostBuffer(DType dtype, int64_t numel);

}  // namespace tessel

#endif  // TESSEL_CORE_BUFFER_H_
