// Memory the user already has (api.md, "Dtypes and creation"): wrapping it without a copy,
// the address of a tensor's buffer, and moving values between devices.
#ifndef TESSEL_OPS_INTEROP_H_
#define TESSEL_OPS_INTEROP_H_

#include <functional>

#include "core/backend.h"
#include "core/tensor.h"

namespace tessel {

// A tensor over `data` (row-major, contiguous, `shape` and `dtype`) without a copy; `deleter`
// runs when tessel no longer needs the memory (on the GPU, after the work queued on it has
// finished). The memory must hold its values while tensors computed from it are still to be
// realized (they read it then). Device memory (cudaMalloc, cuMemAlloc or managed, of the
// current device, 16-byte aligned) is read on tessel's current stream: values written on
// another stream must be finished (or that stream ordered before it) when realize runs.
Tensor from_blob(void* data, Shape shape, DType dtype, Device device,
                 std::function<void(void*)> deleter = {});

// Realizes `t` and returns the address of its buffer on its device (a device pointer for a
// CUDA tensor, valid while `t` lives). On the GPU the value is ready once tessel's current
// stream (Stream::current().cuda_stream()) reaches it: synchronize(), or order your stream
// after it.
const void* data_ptr(const Tensor& t);

// The same values (bit for bit) on `device` (the current CUDA device for kCUDA); `t` itself
// where it is there already.
Tensor to(const Tensor& t, Device device);

}  // namespace tessel

#endif  // TESSEL_OPS_INTEROP_H_
