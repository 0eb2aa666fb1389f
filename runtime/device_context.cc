#include "runtime/device_context.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "runtime/nvrtc_compiler.h"

namespace tessel::runtime {
namespace {

// Uploads go through pinned staging blocks in pieces of at most this size, so that the copy
// is queued on the stream and the caller's memory is free when the call returns (an
// asynchronous copy from pageable memory may read it later). Past the budget, a piece
// waits for an earlier copy to finish and reuses its block.
constexpr int64_t kStagedCopyLimit = int64_t{4} << 20;
constexpr int64_t kStagingBudget = int64_t{64} << 20;
// Retired modules are unloaded this many at a time, after one synchronize.
constexpr size_t kRetiredModuleBatch = 64;

}  // namespace

absl::StatusOr<std::unique_ptr<DeviceContext>> DeviceContext::Open(const Driver* driver,
                                                                   int ordinal, int index,
                                                                   bool own_context) {
  std::unique_ptr<DeviceContext> d(new DeviceContext());
  d->driver_ = driver;
  d->index_ = index;
  CUdevice device;
  TESSEL_RETURN_IF_ERROR(CheckCu(driver->cuDeviceGet(&device, ordinal), "cuDeviceGet"));
  try {
    d->target_ = TargetOfDevice(ordinal);
  } catch (const Error& e) {  // TESSEL_ARCH unreadable (read before a context is made)
    return absl::InvalidArgumentError(e.what());
  }
  if (own_context) {
    if (driver->cuCtxCreateV2 == nullptr) {
      return absl::UnimplementedError("this driver cannot create a context of its own");
    }
    TESSEL_RETURN_IF_ERROR(CheckCu(driver->cuCtxCreateV2(&d->context_, 0, device), "cuCtxCreate"));
    CUcontext popped;  // cuCtxCreate made it current: leave this thread as it was
    driver->cuCtxPopCurrent(&popped);
  } else {
    TESSEL_RETURN_IF_ERROR(CheckCu(driver->cuDevicePrimaryCtxRetain(&d->context_, device),
                                   "cuDevicePrimaryCtxRetain"));
  }
  driver->cuDeviceGetAttribute(&d->sm_count_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
  ScopedContext scope(driver, d->context_);
  CUstream stream;
  TESSEL_RETURN_IF_ERROR(
      CheckCu(driver->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  d->streams_[0] = stream;
  d->stream_count_.store(1, std::memory_order_release);
  TESSEL_RETURN_IF_ERROR(CheckCu(
      driver->cuStreamCreate(&d->capture_stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  TESSEL_RETURN_IF_ERROR(
      CheckCu(driver->cuEventCreate(&d->wait_event_, CU_EVENT_DISABLE_TIMING), "cuEventCreate"));
  d->allocator_ = new DeviceAllocator(driver, d->context_);
  return d;
}

absl::Status DeviceContext::MakeCurrent() {
  // Asked of the driver each time (a thread-local read there): other code in the process
  // (the CUDA runtime, a library) may have changed the current context meanwhile.
  CUcontext current = nullptr;
  if (driver_->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context_) {
    return absl::OkStatus();
  }
  return CheckCu(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

CUstream DeviceContext::stream(int64_t id) const {
  return id >= 0 && id < stream_count_.load(std::memory_order_acquire) ? streams_[id] : nullptr;
}

absl::StatusOr<int64_t> DeviceContext::CreateStream() {
  std::lock_guard<std::mutex> lock(streams_mu_);
  const int64_t id = next_stream_;
  if (id >= stream_count_.load(std::memory_order_relaxed)) {
    ScopedContext scope(driver_, context_);
    CUstream stream;
    TESSEL_RETURN_IF_ERROR(
        CheckCu(driver_->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
    streams_[id] = stream;
    stream_count_.store(id + 1, std::memory_order_release);
  }
  next_stream_ = next_stream_ % kMaxStreams + 1;  // past the pool: reused in turn
  return id;
}

absl::Status DeviceContext::WaitFor(CUstream waiter, CUstream producer) {
  if (waiter == producer) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(wait_mu_);
  // One event serves every wait: a wait takes the event's state when it is enqueued.
  TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuEventRecord(wait_event_, producer), "cuEventRecord"));
  return CheckCu(driver_->cuStreamWaitEvent(waiter, wait_event_, 0), "cuStreamWaitEvent");
}

absl::StatusOr<void*> DeviceContext::StagingBlock(int64_t bytes, CUevent* done) {
  Staging* wait = nullptr;
  for (Staging& s : staging_) {
    if (s.bytes < bytes) continue;
    if (driver_->cuEventQuery(s.done) == CUDA_SUCCESS) {
      *done = s.done;
      return s.host;
    }
    if (wait == nullptr) wait = &s;
  }
  if (wait != nullptr && staging_bytes_ + bytes > kStagingBudget) {
    TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuEventSynchronize(wait->done), "staging copy"));
    *done = wait->done;
    return wait->host;
  }
  int64_t size = 64 << 10;
  while (size < bytes) size *= 2;
  Staging s{nullptr, size, nullptr};
  TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuMemHostAlloc(&s.host, size, 0), "pinned staging"));
  TESSEL_RETURN_IF_ERROR(
      CheckCu(driver_->cuEventCreate(&s.done, CU_EVENT_DISABLE_TIMING), "cuEventCreate"));
  staging_.push_back(s);
  staging_bytes_ += size;
  *done = s.done;
  return s.host;
}

bool DeviceContext::HoldsDeviceMemory(CUdeviceptr ptr) const {
  unsigned int type = 0, managed = 0;
  if (driver_->cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr) !=
      CUDA_SUCCESS) {
    return false;
  }
  return type == CU_MEMORYTYPE_DEVICE ||
         (driver_->cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr) ==
              CUDA_SUCCESS &&
          managed != 0);
}

absl::Status DeviceContext::CopyOnDevice(CUdeviceptr dst, CUdeviceptr src, int64_t bytes,
                                         CUstream stream) {
  return CheckCu(driver_->cuMemcpyDtoDAsync(dst, src, bytes, stream), "copy on the GPU");
}

absl::Status DeviceContext::CopyToDevice(CUdeviceptr dst, const void* src, int64_t bytes,
                                         CUstream stream) {
  std::lock_guard<std::mutex> lock(staging_mu_);
  for (int64_t at = 0; at < bytes; at += kStagedCopyLimit) {
    const int64_t piece = std::min(kStagedCopyLimit, bytes - at);
    CUevent done;
    TESSEL_ASSIGN_OR_RETURN(void* host, StagingBlock(piece, &done));
    std::memcpy(host, static_cast<const char*>(src) + at, piece);
    TESSEL_RETURN_IF_ERROR(
        CheckCu(driver_->cuMemcpyHtoDAsync(dst + at, host, piece, stream), "copy to GPU"));
    TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuEventRecord(done, stream), "cuEventRecord"));
  }
  return absl::OkStatus();
}

absl::Status DeviceContext::CopyToHost(void* dst, CUdeviceptr src, int64_t bytes, CUstream stream) {
  if (bytes == 0) return absl::OkStatus();
  TESSEL_RETURN_IF_ERROR(
      CheckCu(driver_->cuMemcpyDtoHAsync(dst, src, bytes, stream), "copy from GPU"));
  return CheckCu(driver_->cuStreamSynchronize(stream), "copy from GPU");
}

absl::Status DeviceContext::SynchronizeStream(int64_t id) {
  const CUstream s = stream(id);
  if (s == nullptr) {  // never the legacy stream
    return absl::InvalidArgumentError(
        absl::StrCat("stream ", id, " was not created on CUDA device ", index_));
  }
  return CheckCu(driver_->cuStreamSynchronize(s), "synchronizing a stream");
}

absl::Status DeviceContext::Synchronize() {
  ScopedContext scope(driver_, context_);
  TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuCtxSynchronize(), "synchronize"));
  return UnloadRetired();
}

void DeviceContext::RetireModule(CUmodule module) {
  bool batch_full;
  {
    std::lock_guard<std::mutex> lock(retired_mu_);
    retired_.push_back(module);
    batch_full = retired_.size() >= kRetiredModuleBatch;
  }
  if (batch_full) {
    ScopedContext scope(driver_, context_);
    if (driver_->cuCtxSynchronize() == CUDA_SUCCESS) UnloadRetired().IgnoreError();
  }
}

absl::Status DeviceContext::UnloadRetired() {  // after a synchronize
  std::vector<CUmodule> modules;
  {
    std::lock_guard<std::mutex> lock(retired_mu_);
    modules.swap(retired_);
  }
  ScopedContext scope(driver_, context_);
  for (CUmodule m : modules) {
    TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuModuleUnload(m), "unloading a module"));
  }
  return absl::OkStatus();
}

}  // namespace tessel::runtime
