#include "ops/interop.h"

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/backend.h"
#include "core/buffer.h"
#include "core/realize.h"
#include "ops/record.h"

namespace tessel {
namespace {

using ops_internal::Describe;

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
  ops_internal::CheckShapeLimits("from_blob", shape);
  if (data == nullptr && shape.numel() > 0) {
    ThrowOpError("from_blob", "null data for ", DTypeName(dtype), shape.ToString());
  }
  // Kernels read up to 16 bytes at a time from where a buffer starts (and TMA needs it).
  if (device != Device::kCPU && reinterpret_cast<uintptr_t>(data) % 16 != 0) {
    ThrowOpError("from_blob", "device memory at 0x", absl::Hex(reinterpret_cast<uintptr_t>(data)),
                 " for ", DTypeName(dtype), shape.ToString(),
                 " is not 16-byte aligned (tessel's kernels read 16 bytes at a time)");
  }
  absl::StatusOr<Backend*> backend = GetBackend(device);
  if (!backend.ok()) {
    ThrowOpError("from_blob", DTypeName(dtype), shape.ToString(), ": ", backend.status().message());
  }
  absl::StatusOr<BufferPtr> buffer =
      (*backend)->WrapMemory(data, dtype, shape.numel(), std::move(deleter));
  if (!buffer.ok()) {
    ThrowOpError("from_blob", DTypeName(dtype), shape.ToString(), " on ", DeviceName(device), ": ",
                 buffer.status().message());
  }
  return Tensor(MakeInputNode(dtype, device, shape, *std::move(buffer)));
}

const void* data_ptr(const Tensor& t) { return RealizedBuffer(t, "data_ptr").data(); }

Tensor to(const Tensor& t, Device device) {
  OpErrorScope scope("to");
  CheckedNode(t, "to");
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
  std::optional<ValueRange> range = t.node().range();
  if (!range) range = RangeOfHostData(t.dtype(), host, t.numel());
  return Tensor(MakeInputNode(t.dtype(), device, t.shape(), std::move(moved), range));
}

}  // namespace tessel
