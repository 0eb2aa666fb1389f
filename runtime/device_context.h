// One CUDA device as tessel uses it: its context, target architecture, streams, memory, and
// host copies through pinned staging memory. Knows nothing of graphs or plans.
//
// Streams are created non-blocking, so they never wait for CUDA's legacy null stream or each
// other. Stream 0 is the device's default; CreateStream hands out up to kMaxStreams more
// and then reuses them in turn (a loop that creates a stream per step holds a bounded set).
#ifndef TESSEL_RUNTIME_DEVICE_CONTEXT_H_
#define TESSEL_RUNTIME_DEVICE_CONTEXT_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "core/target.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_memory.h"

namespace tessel::runtime {

class DeviceContext {
 public:
  static constexpr int kMaxStreams = 32;

  // GPU `ordinal` of the driver as tessel's device `index`. `own_context`: a context of its
  // own instead of the device's primary one (several tessel devices on one GPU).
  static absl::StatusOr<std::unique_ptr<DeviceContext>> Open(const Driver* driver, int ordinal,
                                                             int index, bool own_context);

  // Makes the context current on this thread.
  absl::Status MakeCurrent();

  int index() const { return index_; }
  const Driver* driver() const { return driver_; }
  CUcontext context() const { return context_; }
  const Target& target() const { return target_; }
  int sm_count() const { return sm_count_; }
  DeviceAllocator& allocator() { return *allocator_; }

  // The stream with id `id` (0: the default; others from CreateStream); null for an id this
  // device never handed out.
  CUstream stream(int64_t id) const;
  absl::StatusOr<int64_t> CreateStream();
  // A stream nothing runs on, where plans' launches are captured into CUDA graphs
  // (backend/plan_graph.h): other threads' work on the other streams stays out of them.
  CUstream capture_stream() const { return capture_stream_; }

  // Makes `waiter` wait for the work queued on `producer` so far (nothing if they are equal).
  absl::Status WaitFor(CUstream waiter, CUstream producer);
  // Host to device, ordered on `stream`; `src` may be reused when this returns.
  absl::Status CopyToDevice(CUdeviceptr dst, const void* src, int64_t bytes, CUstream stream);
  // Whether `ptr` is device memory (cudaMalloc, cuMemAlloc) or managed memory.
  bool HoldsDeviceMemory(CUdeviceptr ptr) const;
  // Device to device, ordered on `stream`.
  absl::Status CopyOnDevice(CUdeviceptr dst, CUdeviceptr src, int64_t bytes, CUstream stream);
  // Device to host after the work queued on `stream`; complete when this returns.
  absl::Status CopyToHost(void* dst, CUdeviceptr src, int64_t bytes, CUstream stream);

  absl::Status SynchronizeStream(int64_t id);
  absl::Status Synchronize();  // every stream

  // Unloads `module` soon: modules retired together are unloaded after one synchronize
  // (kernels from them may still be in flight), at the latest at the next Synchronize.
  void RetireModule(CUmodule module);

 private:
  DeviceContext() = default;
  // A pinned block of at least `bytes` whose last copy has finished (staging_mu_ held).
  absl::StatusOr<void*> StagingBlock(int64_t bytes, CUevent* done);

  const Driver* driver_ = nullptr;
  int index_ = 0;
  CUcontext context_ = nullptr;
  Target target_;
  int sm_count_ = 1;
  DeviceAllocator* allocator_ = nullptr;  // never freed: buffers may outlive main

  // Streams are read on every launch without a lock: slots are written once, before the
  // count that publishes them.
  std::array<CUstream, kMaxStreams + 1> streams_{};  // [0] is the default
  CUstream capture_stream_ = nullptr;
  std::atomic<int64_t> stream_count_{0};
  std::mutex streams_mu_;  // creating streams
  int64_t next_stream_ = 1;

  std::mutex wait_mu_;  // the wait event
  CUevent wait_event_ = nullptr;

  std::mutex retired_mu_;
  std::vector<CUmodule> retired_;
  absl::Status UnloadRetired();

  std::mutex staging_mu_;  // the staging blocks
  struct Staging {
    void* host;
    int64_t bytes;
    CUevent done;  // recorded after the block's last copy
  };
  std::vector<Staging> staging_;
  int64_t staging_bytes_ = 0;
};

}  // namespace tessel::runtime

#endif  // TESSEL_RUNTIME_DEVICE_CONTEXT_H_
