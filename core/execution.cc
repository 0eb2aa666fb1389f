#include "core/execution.h"

#include "absl/container/flat_hash_map.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/tensor.h"

namespace tessel {
namespace {

thread_local int current_device_index = 0;

// This thread's current stream per (device kind, index); absent: the default stream 0.
absl::flat_hash_map<std::pair<Device, int>, int64_t>& CurrentStreams() {
  thread_local absl::flat_hash_map<std::pair<Device, int>, int64_t> streams;
  return streams;
}

Backend& BackendOf(Device device, const char* op) {
  absl::StatusOr<Backend*> backend = GetBackend(device);
  if (!backend.ok()) ThrowOpError(op, backend.status().message());
  return **backend;
}

}  // namespace

int device_count() {
  Backend* cuda = UsableCudaBackend("device_count");
  return cuda != nullptr ? cuda->DeviceCount() : 0;
}

void set_device(int index) {
  const int count = device_count();
  if (index < 0 || index >= count) {
    ThrowOpError("set_device", "device ", index, " does not exist: this process has ", count,
                 count == 1 ? " CUDA device" : " CUDA devices");
  }
  current_device_index = index;
}

int current_device() { return current_device_index; }

int CurrentIndexOf(Device device) { return device == Device::kCUDA ? current_device_index : 0; }

int device_index(const Tensor& t) { return CheckedNode(t, "device_index")->device_index(); }

DeviceOfScope::DeviceOfScope(const Tensor& like) : saved_(current_device_index) {
  if (like.defined() && like.device() == Device::kCUDA) {
    current_device_index = like.node().device_index();
  }
}

DeviceOfScope::~DeviceOfScope() { current_device_index = saved_; }

int64_t CurrentStreamId(Device device, int index) {
  auto& streams = CurrentStreams();
  auto it = streams.find({device, index});
  return it == streams.end() ? 0 : it->second;
}

Stream Stream::create() {
  const Device device = default_device();
  const int index = CurrentIndexOf(device);
  absl::StatusOr<int64_t> id = BackendOf(device, "Stream::create").CreateStream(index);
  ThrowIfError(id.status());
  return Stream(device, index, *id);
}

Stream Stream::current() {
  const Device device = default_device();
  const int index = CurrentIndexOf(device);
  return Stream(device, index, CurrentStreamId(device, index));
}

void Stream::synchronize() const {
  ThrowIfError(BackendOf(device_, "Stream::synchronize").SynchronizeStream(index_, id_));
}

void* Stream::cuda_stream() const {
  absl::StatusOr<void*> s = BackendOf(device_, "Stream::cuda_stream").NativeStream(index_, id_);
  ThrowIfError(s.status());
  return *s;
}

StreamGuard::StreamGuard(const Stream& stream)
    : stream_(stream),
      previous_stream_(CurrentStreamId(stream.device(), stream.device_index())),
      previous_device_(current_device_index) {
  CurrentStreams()[{stream.device(), stream.device_index()}] = stream.id();
  if (stream.device() == Device::kCUDA) current_device_index = stream.device_index();
}

StreamGuard::~StreamGuard() {
  CurrentStreams()[{stream_.device(), stream_.device_index()}] = previous_stream_;
  current_device_index = previous_device_;
}

}  // namespace tessel
