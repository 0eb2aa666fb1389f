// Gather and scatter_add: every position of the index tensor, in order, reads or adds one
// element of the data at that position with the axis coordinate replaced by the index.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/strided.h"
#include "ops/cpu/wrapping.h"
#include "ops/indexing.h"

namespace tessel::cpu {
namespace {

// The index tensor's values as int64.
std::vector<int64_t> Indices(const Node& index, const Buffer& buffer) {
  return LoadBroadcast<int64_t>(buffer, index.shape(), index.shape());
}

// Calls f(i, offset) for every position i of `index_shape` (row-major), offset being where
// that position lands in a contiguous `data` with its `axis` coordinate left at 0.
template <typename F>
void ForEachPosition(const Shape& index_shape, const Shape& data, int axis, F&& f) {
  Shape::Dims strides = data.Strides();
  strides[axis] = 0;
  ForEachStrided(index_shape, strides, 0, f);
}

absl::StatusOr<BufferPtr> Gather(const Node& node, const InputBuffers& inputs) {
  const Node& data = node.input(0);
  const int axis = static_cast<int>(node.attrs().ints[0]);
  const std::vector<int64_t> index = Indices(node.input(1), *inputs[1]);
  const int64_t size = data.shape()[axis], stride = data.shape().Strides()[axis];
  const int64_t bytes = DTypeSize(node.dtype());
  const auto* src = static_cast<const char*>(inputs[0]->data());
  auto out = NewHostBuffer(node.dtype(), node.shape().numel());
  auto* dst = static_cast<char*>(out->data());
  absl::Status status;
  ForEachPosition(node.shape(), data.shape(), axis, [&](int64_t i, int64_t offset) {
    const int64_t v = index[i];
    if (v < 0 || v >= size) {
      if (status.ok()) status = ops_internal::IndexOutOfRange(node, v);
      return;
    }
    std::memcpy(dst + i * bytes, src + (offset + v * stride) * bytes, bytes);
  });
  if (!status.ok()) return status;
  return BufferPtr(out);
}

template <typename C>
absl::StatusOr<BufferPtr> ScatterAdd(const Node& node, const InputBuffers& inputs) {
  const Node& data = node.input(0);
  const Node& src = node.input(2);
  const int axis = static_cast<int>(node.attrs().ints[0]);
  std::vector<C> values = LoadBroadcast<C>(*inputs[0], data.shape(), data.shape());
  const std::vector<C> adds = LoadBroadcast<C>(*inputs[2], src.shape(), src.shape());
  const std::vector<int64_t> index = Indices(node.input(1), *inputs[1]);
  const Shape& index_shape = node.input(1).shape();
  std::vector<int64_t> from(index.size());  // where each index position reads src
  ForEachStrided(index_shape, src.shape().Strides(), 0,
                 [&](int64_t i, int64_t offset) { from[i] = offset; });
  const int64_t size = data.shape()[axis], stride = data.shape().Strides()[axis];
  absl::Status status;
  ForEachPosition(index_shape, data.shape(), axis, [&](int64_t i, int64_t offset) {
    const int64_t v = index[i];
    if (v < 0 || v >= size) {
      if (status.ok()) status = ops_internal::IndexOutOfRange(node, v);
      return;
    }
    C& target = values[offset + v * stride];
    target = WrapAdd(target, adds[from[i]]);
  });
  if (!status.ok()) return status;
  return StoreAs<C>(node.dtype(), values.data(), static_cast<int64_t>(values.size()));
}

}  // namespace

absl::StatusOr<BufferPtr> RunIndex(const Node& node, const InputBuffers& inputs) {
  if (node.op() == OpKind::kGather) return Gather(node, inputs);
  if (IsFloating(node.dtype())) return ScatterAdd<double>(node, inputs);
  return ScatterAdd<int64_t>(node, inputs);
}

}  // namespace tessel::cpu
