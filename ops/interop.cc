#include "ops/interop.h"

#include <cstring>
#include <utility>
#include <vector>

#include "core/buffer.h"
#include "core/realize.h"
#include "ops/record.h"

namespace tessel {
namespace {

using ops_internal::Describe;

// Host memory that tessel does not own.
class ExternalHostBuffer : public Buffer {
 public:
  ExternalHostBuffer(void* data, DType dtype, int64_t numel, std::function<void(void*)> deleter)
      : Buffer(Device::kCPU, dtype, numel), data_(data), deleter_(std::move(deleter)) {}
  ~ExternalHostBuffer() override {
    if (deleter_) deleter_(data_);
  }
  void* data() override { return data_; }

 private:
  void* data_;
  std::function<void(void*)> deleter_;
};

const Buffer& RealizedBuffer(const Tensor& t, absl::string_view op) {
  CheckedNode(t, op);
  if (!t.realized()) realize({t});
  if (t.node().buffer() == nullptr) {
    ThrowOpError(op, Describe(t), " holds no data (a placeholder parsed from text)");
  }
  return *t.node().buffer();
}

}  // namespace

Tensor from_blob(void* data, Shape shape, DType dtype, Device device,
                 std::function<void(void*)> deleter) {
  for (int64_t d : shape.dims()) {
    if (d < 0) ThrowOpError("from_blob", "negative dimension in shape ", shape.ToString());
  }
  if (data == nullptr && shape.numel() > 0) {
    ThrowOpError("from_blob", "null data for ", DTypeName(dtype), shape.ToString());
  }
  if (device != Device::kCPU) {
    ThrowOpError("from_blob", "wrapping device memory is not built yet (", DTypeName(dtype),
                 shape.ToString(), " on ", DeviceName(device),
                 "): copy it in with from_vector, or wrap host memory");
  }
  auto buffer =
      std::make_shared<ExternalHostBuffer>(data, dtype, shape.numel(), std::move(deleter));
  return Tensor(MakeInputNode(dtype, device, shape, std::move(buffer)));
}

const void* data_ptr(const Tensor& t) { return RealizedBuffer(t, "data_ptr").data(); }

Tensor to(const Tensor& t, Device device) {
  CheckedNode(t, "to");
  ops_internal::CheckDeviceHasDType("to", t.dtype(), device);
  const Buffer& buffer = RealizedBuffer(t, "to");
  if (t.device() == device) return t;
  std::vector<uint8_t> storage;
  const void* host = HostData(t, &storage);
  BufferPtr moved;
  if (device == Device::kCPU) {
    auto copy = NewHostBuffer(t.dtype(), t.numel());
    std::memcpy(copy->data(), host, buffer.bytes());
    moved = std::move(copy);
  } else {
    absl::StatusOr<Backend*> onto = GetBackend(device);
    if (!onto.ok()) ThrowOpError("to", Describe(t), ": ", onto.status().message());
    absl::StatusOr<BufferPtr> uploaded = (*onto)->Upload(t.dtype(), t.numel(), host);
    ThrowIfError(uploaded.status());
    moved = *std::move(uploaded);
  }
  return Tensor(MakeInputNode(t.dtype(), device, t.shape(), std::move(moved)));
}

}  // namespace tessel
