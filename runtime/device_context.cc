#include "runtime/device_context.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/nvrtc_compiler.h"

namespace tessel::runtime {
namespace {

// Uploads up to this size go through pinned staging blocks, so that the copy is queued on
// the stream and returns at once; larger ones copy from the caller's pageable memory, which
// the driver stages itself (and waits for the stream first).
constexpr int64_t kStagedCopyLimit = int64_t{4} << 20;
constexpr int64_t kStagingBudget = int64_t{64} << 20;

}  // namespace

absl::StatusOr<std::unique_ptr<DeviceContext>> DeviceContext::Open(const Driver* driver,
                                                                   int ordinal, int index,
                                                                   bool own_context) {
  std::unique_ptr<DeviceContext> d(new DeviceContext());
  d->driver_ = driver;
  d->index_ = index;
  CUdevice device;
  TESSEL_RETURN_IF_ERROR(CheckCu(driver->cuDeviceGet(&device, ordinal), "cuDeviceGet"));
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
  d->target_ = TargetOfDevice(ordinal);
  ScopedContext scope(driver, d->context_);
  CUstream stream;
  TESSEL_RETURN_IF_ERROR(
      CheckCu(driver->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  d->streams_.push_back(stream);
  TESSEL_RETURN_IF_ERROR(
      CheckCu(driver->cuEventCreate(&d->wait_event_, CU_EVENT_DISABLE_TIMING), "cuEventCreate"));
  d->allocator_ = new DeviceAllocator(driver, d->context_);
  return d;
}

absl::Status DeviceContext::MakeCurrent() {
  thread_local CUcontext current = nullptr;
  if (current == context_) return absl::OkStatus();
  TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent"));
  current = context_;
  return absl::OkStatus();
}

CUstream DeviceContext::stream(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  return id > 0 && id < static_cast<int64_t>(streams_.size()) ? streams_[id] : streams_[0];
}

absl::StatusOr<int64_t> DeviceContext::CreateStream() {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t id = next_stream_;
  next_stream_ = next_stream_ % kMaxStreams + 1;
  if (id < static_cast<int64_t>(streams_.size())) return id;  // reused in turn
  ScopedContext scope(driver_, context_);
  CUstream stream;
  TESSEL_RETURN_IF_ERROR(
      CheckCu(driver_->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  streams_.push_back(stream);
  return id;
}

absl::Status DeviceContext::WaitFor(CUstream waiter, CUstream producer) {
  if (waiter == producer) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
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

absl::Status DeviceContext::CopyToDevice(CUdeviceptr dst, const void* src, int64_t bytes,
                                         CUstream stream) {
  if (bytes == 0) return absl::OkStatus();
  if (bytes > kStagedCopyLimit) {
    return CheckCu(driver_->cuMemcpyHtoDAsync(dst, src, bytes, stream), "copy to GPU");
  }
  std::lock_guard<std::mutex> lock(mu_);
  CUevent done;
  TESSEL_ASSIGN_OR_RETURN(void* host, StagingBlock(bytes, &done));
  std::memcpy(host, src, bytes);
  TESSEL_RETURN_IF_ERROR(
      CheckCu(driver_->cuMemcpyHtoDAsync(dst, host, bytes, stream), "copy to GPU"));
  return CheckCu(driver_->cuEventRecord(done, stream), "cuEventRecord");
}

absl::Status DeviceContext::CopyToHost(void* dst, CUdeviceptr src, int64_t bytes, CUstream stream) {
  if (bytes == 0) return absl::OkStatus();
  TESSEL_RETURN_IF_ERROR(
      CheckCu(driver_->cuMemcpyDtoHAsync(dst, src, bytes, stream), "copy from GPU"));
  return CheckCu(driver_->cuStreamSynchronize(stream), "copy from GPU");
}

absl::Status DeviceContext::SynchronizeStream(int64_t id) {
  return CheckCu(driver_->cuStreamSynchronize(stream(id)), "synchronizing a stream");
}

absl::Status DeviceContext::Synchronize() {
  ScopedContext scope(driver_, context_);
  return CheckCu(driver_->cuCtxSynchronize(), "synchronize");
}

}  // namespace tessel::runtime
