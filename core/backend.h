// Backend: computes a Program (the unrealized part of a graph, in topological order) on one
// device. realize() -> Backend. The CPU backend (ops/cpu) interprets node by node; the CUDA
// backend plans fused kernels. Backends register themselves at static initialization.
#ifndef TESSEL_CORE_BACKEND_H_
#define TESSEL_CORE_BACKEND_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/buffer.h"
#include "core/dtype.h"
#include "core/memory.h"
#include "core/node.h"

namespace tessel {

struct Program {
  // Every unrealized node the outputs need, producers before consumers. Inputs of these
  // nodes are either in this list or realized.
  std::vector<const Node*> nodes;
  // Distinct nodes of `nodes` whose values the caller keeps.
  std::vector<const Node*> outputs;
  // Where it runs: the device of its nodes and the caller's current stream there.
  int device_index = 0;
  int64_t stream = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual Device device() const = 0;
  // Whether this machine can run it (a GPU and driver, for CUDA), and if not, why.
  virtual absl::Status Available() = 0;

  // One buffer per program output, in order. Each node is computed at most once.
  virtual absl::StatusOr<std::vector<BufferPtr>> Run(const Program& program) = 0;
  // Host bytes (numel * DTypeSize) to and from this device's memory.
  virtual absl::StatusOr<BufferPtr> Upload(DType dtype, int64_t numel, const void* host) = 0;
  virtual absl::Status Download(const Buffer& buffer, void* host) = 0;
  // A buffer over memory of the current device that tessel does not own (from_blob); `release`
  // (if set) runs once the work queued on it has finished and the buffer is dropped.
  virtual absl::StatusOr<BufferPtr> WrapMemory(void* data, DType dtype, int64_t numel,
                                               std::function<void(void*)> release);
  // Copies `source` over `destination` (same device, dtype and size), ordered after the work
  // on stream `stream` so far and before what follows there; false where it cannot do that
  // in order (assign() then keeps `source`).
  virtual absl::StatusOr<bool> CopyInPlace(Buffer& destination, const Buffer& source,
                                           int64_t stream);
  // Waits for queued work on every device and stream (device backends run asynchronously).
  virtual absl::Status Synchronize() { return absl::OkStatus(); }

  // Devices of this kind, numbered from 0.
  virtual int DeviceCount() { return 1; }
  // A new stream on device `index` (0 names each device's default stream).
  virtual absl::StatusOr<int64_t> CreateStream(int index);
  // Waits for the work enqueued so far on stream `stream` of device `index`.
  virtual absl::Status SynchronizeStream(int index, int64_t stream);
  // The native handle of a stream (a CUstream), nullptr where there is none.
  virtual absl::StatusOr<void*> NativeStream(int index, int64_t stream);
  // Memory of device `index` (memory.h).
  virtual MemoryStats GetMemoryStats(int index) = 0;
  virtual absl::Status EmptyCache(int index) = 0;
  virtual void SetMemoryLimit(int index, int64_t bytes) = 0;
};

void RegisterBackend(std::unique_ptr<Backend> backend);
// The registered, available backend for `device`, or an error that says why there is none.
absl::StatusOr<Backend*> GetBackend(Device device);

// The CUDA backend, or nullptr where there is no usable GPU; an Error (named `op`) where a
// setting makes the GPU unusable (TESSEL_ARCH, TESSEL_VIRTUAL_DEVICES): running on the CPU
// instead, or counting no GPUs, would hide it.
Backend* UsableCudaBackend(absl::string_view op);

// kCUDA when a CUDA backend is registered and available, else kCPU; TESSEL_DEVICE=cpu|cuda
// overrides it (an unknown value, or cuda without a usable GPU, throws Error).
Device default_device();

// Waits until every queued computation on every device has finished (for timing).
void synchronize();

}  // namespace tessel

#endif  // TESSEL_CORE_BACKEND_H_
