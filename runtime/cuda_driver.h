// The CUDA driver API, opened with dlopen at first use so that every tessel binary starts on
// machines without a GPU or driver.
#ifndef TESSEL_RUNTIME_CUDA_DRIVER_H_
#define TESSEL_RUNTIME_CUDA_DRIVER_H_

#include <cuda.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessel::runtime {

// name, exported symbol (the versioned one that cuda.h's macros select).
#define TESSEL_CUDA_DRIVER_FUNCTIONS(X)                         \
  X(cuInit, "cuInit")                                           \
  X(cuGetErrorName, "cuGetErrorName")                           \
  X(cuGetErrorString, "cuGetErrorString")                       \
  X(cuDeviceGetCount, "cuDeviceGetCount")                       \
  X(cuDeviceGet, "cuDeviceGet")                                 \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute")               \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")       \
  X(cuCtxSetCurrent, "cuCtxSetCurrent")                         \
  X(cuCtxSynchronize, "cuCtxSynchronize")                       \
  X(cuMemAlloc, "cuMemAlloc_v2")                                \
  X(cuMemFree, "cuMemFree_v2")                                  \
  X(cuModuleLoadData, "cuModuleLoadData")                       \
  X(cuModuleGetFunction, "cuModuleGetFunction")                 \
  X(cuLaunchKernel, "cuLaunchKernel")                           \
  X(cuFuncSetAttribute, "cuFuncSetAttribute")                   \
  X(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled")           \
  X(cuEventCreate, "cuEventCreate")                             \
  X(cuEventRecord, "cuEventRecord")                             \
  X(cuEventSynchronize, "cuEventSynchronize")                   \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2")                \
  X(cuEventDestroy, "cuEventDestroy_v2")                        \
  X(cuEventQuery, "cuEventQuery")                               \
  X(cuModuleUnload, "cuModuleUnload")                           \
  X(cuStreamCreate, "cuStreamCreate")                           \
  X(cuStreamSynchronize, "cuStreamSynchronize")                 \
  X(cuStreamWaitEvent, "cuStreamWaitEvent")                     \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")                  \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")                  \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2")                  \
  X(cuMemHostAlloc, "cuMemHostAlloc")                           \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2")                    \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2")                      \
  X(cuCtxGetCurrent, "cuCtxGetCurrent")                         \
  X(cuPointerGetAttribute, "cuPointerGetAttribute")             \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2")            \
  X(cuStreamEndCapture, "cuStreamEndCapture")                   \
  X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags") \
  X(cuGraphLaunch, "cuGraphLaunch")                             \
  X(cuGraphExecDestroy, "cuGraphExecDestroy")                   \
  X(cuGraphDestroy, "cuGraphDestroy")

struct Driver {
#define TESSEL_DECLARE(name, symbol) decltype(&::name) name = nullptr;
  TESSEL_CUDA_DRIVER_FUNCTIONS(TESSEL_DECLARE)
#undef TESSEL_DECLARE
  // A context of its own on a device (for TESSEL_VIRTUAL_DEVICES); the driver's oldest
  // signature, which every driver exports. Null if absent.
  CUresult (*cuCtxCreateV2)(CUcontext* context, unsigned int flags, CUdevice device) = nullptr;
  // Launches with attributes (programmatic dependent launch); from CUDA 12 drivers. Null if
  // absent: such kernels then launch as any other.
  decltype(&::cuLaunchKernelEx) cuLaunchKernelEx = nullptr;
  // How many clusters of a kernel the device runs at once (CUDA 12 drivers). Null if absent.
  decltype(&::cuOccupancyMaxActiveClusters) cuOccupancyMaxActiveClusters = nullptr;
};

// Makes `context` current on this thread for a scope (the previous one current again after).
class ScopedContext {
 public:
  ScopedContext(const Driver* driver, CUcontext context)
      : driver_(driver), pushed_(driver_->cuCtxPushCurrent(context) == CUDA_SUCCESS) {}
  ~ScopedContext() {
    CUcontext popped;
    if (pushed_) driver_->cuCtxPopCurrent(&popped);  // never the caller's own context
  }
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  const Driver* driver_;
  bool pushed_;
};

// The loaded driver with cuInit done, or why there is none (no libcuda.so.1, no device).
// Loaded once; later calls return the same answer.
absl::StatusOr<const Driver*> GetDriver();

// OK, or an Internal error "<what>: CUDA_ERROR_...: <description>".
absl::Status CheckCu(CUresult result, absl::string_view what);

}  // namespace tessel::runtime

#endif  // TESSEL_RUNTIME_CUDA_DRIVER_H_
