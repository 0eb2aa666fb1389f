#include "ops/creation.h"

#include "absl/base/casts.h"
#include "core/buffer.h"
#include "core/element.h"
#include "ops/record.h"

namespace tessel {
namespace {

using ops_internal::Record;

void CheckShape(absl::string_view op, const Shape& shape) {
  for (int i = 0; i < shape.rank(); ++i) {
    if (shape[i] < 0) ThrowOpError(op, "negative dimension in shape ", shape.ToString());
  }
  ops_internal::CheckShapeLimits(op, shape);
}

// Converts host values into a buffer of `dtype` on `device`.
template <typename T>
Tensor FromHost(absl::string_view op, const std::vector<T>& data, const Shape& shape, DType dtype,
                Device device) {
  CheckShape(op, shape);
  if (static_cast<int64_t>(data.size()) != shape.numel()) {
    ThrowOpError(op, data.size(), " values do not fill shape ", shape.ToString(), " (",
                 shape.numel(), " elements)");
  }
  auto host = NewHostBuffer(dtype, shape.numel());
  VisitDType(dtype, [&](auto zero) {
    using S = decltype(zero);
    S* dst = host->template as<S>();
    for (size_t i = 0; i < data.size(); ++i) dst[i] = ToStorage<S>(static_cast<T>(data[i]));
  });
  // Copied from the host: its bounds are known ([ Note -- value ranges ], core/value_range.h).
  const std::optional<ValueRange> range = RangeOfHostData(dtype, host->data(), shape.numel());
  BufferPtr buffer = host;
  if (device != Device::kCPU) {
    absl::StatusOr<Backend*> backend = GetBackend(device);
    if (!backend.ok()) ThrowOpError(op, backend.status().message());
    absl::StatusOr<BufferPtr> uploaded = (*backend)->Upload(dtype, shape.numel(), host->data());
    ThrowIfError(uploaded.status());
    buffer = *std::move(uploaded);
  }
  return Tensor(MakeInputNode(dtype, device, shape, std::move(buffer), range));
}

Tensor Generator(absl::string_view op, OpKind kind, const Shape& shape, uint64_t seed, DType dtype,
                 Device device) {
  CheckShape(op, shape);
  if (!IsFloating(dtype)) ThrowOpError(op, "needs a floating dtype, not ", DTypeName(dtype));
  Attrs attrs;
  attrs.ints = {absl::bit_cast<int64_t>(seed)};
  return Record(kind, dtype, device, shape, {}, std::move(attrs));
}

}  // namespace

Tensor from_vector(const std::vector<float>& data, Shape shape, DType dtype, Device device) {
  return FromHost("from_vector", data, shape, dtype, device);
}

Tensor from_vector(std::initializer_list<float> data, Shape shape, DType dtype, Device device) {
  return FromHost("from_vector", std::vector<float>(data), shape, dtype, device);
}

Tensor from_vector(const std::vector<int32_t>& data, Shape shape, DType dtype, Device device) {
  return FromHost("from_vector", data, shape, dtype, device);
}

Tensor from_vector(const std::vector<bool>& data, Shape shape, DType dtype, Device device) {
  return FromHost("from_vector", data, shape, dtype, device);
}

Tensor from_vector(const std::vector<int64_t>& data, Shape shape, DType dtype, Device device) {
  return FromHost("from_vector", data, shape, dtype, device);
}

Tensor from_vector(const std::vector<double>& data, Shape shape, DType dtype, Device device) {
  return FromHost("from_vector", data, shape, dtype, device);
}

Tensor full(Shape shape, double value, DType dtype, Device device) {
  CheckShape("full", shape);
  ops_internal::CheckIntegerFill("full", value, dtype, DTypeName(dtype));
  Attrs attrs;
  attrs.value = value;
  return Record(OpKind::kFull, dtype, device, shape, {}, std::move(attrs));
}

Tensor zeros(Shape shape, DType dtype, Device device) { return full(shape, 0, dtype, device); }

Tensor ones(Shape shape, DType dtype, Device device) { return full(shape, 1, dtype, device); }

Tensor arange(int64_t n, DType dtype, Device device) {
  if (n < 0) ThrowOpError("arange", "n must not be negative, got ", n);
  if (dtype == DType::kBool) {
    ThrowOpError("arange", "does not make bool positions (0, 1, 2, ... are no truth values); ",
                 "compare them instead, e.g. arange(n) < k");
  }
  return Record(OpKind::kArange, dtype, device, Shape{n}, {});
}

Tensor randn(Shape shape, uint64_t seed, DType dtype, Device device) {
  return Generator("randn", OpKind::kRandn, shape, seed, dtype, device);
}

Tensor rand(Shape shape, uint64_t seed, DType dtype, Device device) {
  return Generator("rand", OpKind::kRand, shape, seed, dtype, device);
}

}  // namespace tessel
