// Where work runs: devices and streams (api.md, "Devices, streams and memory").
//
// Each thread has a current CUDA device (set_device) and, per device, a current stream
// (StreamGuard). New CUDA tensors live on the current device; realize enqueues their work on
// the current stream of their device, so work on different streams may overlap. Stream 0 is
// each device's default stream (its own stream, not CUDA's legacy null stream, which would
// serialize with every other). On the CPU, streams exist but work runs when realized.
#ifndef TESSEL_CORE_EXECUTION_H_
#define TESSEL_CORE_EXECUTION_H_

#include <cstdint>

#include "core/dtype.h"

namespace tessel {

class Tensor;

// CUDA devices this process can use (0 without a GPU). TESSEL_VIRTUAL_DEVICES=N shows each
// GPU as N devices with contexts of their own: several devices tested on one GPU.
int device_count();
// Selects the CUDA device that new CUDA tensors of this thread live on. Throws Error for an
// index out of range.
void set_device(int index);
int current_device();
// The index new tensors of kind `device` get: the current device for CUDA, 0 for the CPU.
int CurrentIndexOf(Device device);
// The device index of `t` (0 for CPU tensors).
int device_index(const Tensor& t);
// While it lives, the CUDA tensors this thread makes go to the device of `like` (when `like`
// is a CUDA tensor), not the current one: what an op makes inside (its scalars, positions and
// fills) joins its operands on cuda:1 whichever device is current.
class DeviceOfScope {
 public:
  explicit DeviceOfScope(const Tensor& like);
  ~DeviceOfScope();
  DeviceOfScope(const DeviceOfScope&) = delete;
  DeviceOfScope& operator=(const DeviceOfScope&) = delete;

 private:
  int saved_;
};

class Stream {
 public:
  // A new stream on the current device of the default device kind.
  static Stream create();
  // This thread's current stream on the current device.
  static Stream current();
  // Waits until the work enqueued on this stream so far has finished.
  void synchronize() const;
  // The CUstream behind a CUDA stream (nullptr on the CPU), for work of other CUDA libraries
  // that must be ordered with tessel's (cuBLAS, CUDA events).
  void* cuda_stream() const;

  Device device() const { return device_; }
  int device_index() const { return index_; }
  int64_t id() const { return id_; }  // 0: the device's default stream
  friend bool operator==(const Stream& a, const Stream& b) {
    return a.device_ == b.device_ && a.index_ == b.index_ && a.id_ == b.id_;
  }
  friend bool operator!=(const Stream& a, const Stream& b) { return !(a == b); }

 private:
  Stream(Device device, int index, int64_t id) : device_(device), index_(index), id_(id) {}
  friend class StreamGuard;

  Device device_;
  int index_;
  int64_t id_;
};

// Makes `stream` current (on its device) for the guard's scope, and its device current too.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream stream_;
  int64_t previous_stream_;
  int previous_device_;
};

// For backends: this thread's current stream on device `index` of kind `device`.
int64_t CurrentStreamId(Device device, int index);

}  // namespace tessel

#endif  // TESSEL_CORE_EXECUTION_H_
