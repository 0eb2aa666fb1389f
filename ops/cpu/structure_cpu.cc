// Views and concat: every view reads its input at offset + index . strides; reshape shares
// its input's buffer, which is safe because buffers are immutable once computed.
#include "absl/strings/str_cat.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/strided.h"

namespace tessel::cpu {
namespace {

// Copies `in` viewed as (shape, strides, offset) into a new buffer of the same dtype.
BufferPtr Gather(const Buffer& in, const Shape& shape, absl::Span<const int64_t> strides,
                 int64_t offset) {
  auto out = NewHostBuffer(in.dtype(), shape.numel());
  VisitDType(in.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* src = static_cast<const T*>(in.data());
    T* dst = out->template as<T>();
    ForEachStrided(shape, strides, offset, [&](int64_t o, int64_t i) { dst[o] = src[i]; });
  });
  return out;
}

BufferPtr Concat(const Node& node, const std::vector<BufferPtr>& inputs) {
  const int axis = static_cast<int>(node.attrs().ints[0]);
  const Shape::Dims out_strides = node.shape().Strides();
  auto out = NewHostBuffer(node.dtype(), node.shape().numel());
  int64_t start = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Buffer& in = *inputs[k];
    const Shape& in_shape = node.input(k).shape();
    // Walk the input in order, writing where its elements land in the output.
    VisitDType(in.dtype(), [&](auto in_zero) {
      VisitDType(node.dtype(), [&](auto out_zero) {
        using S = decltype(in_zero);
        using T = decltype(out_zero);
        const S* src = static_cast<const S*>(in.data());
        T* dst = out->template as<T>();
        ForEachStrided(in_shape, out_strides, start * out_strides[axis],
                       [&](int64_t i, int64_t o) { dst[o] = ToStorage<T>(src[i]); });
      });
    });
    start += in_shape[axis];
  }
  return out;
}

}  // namespace

absl::StatusOr<BufferPtr> RunStructure(const Node& node, const std::vector<BufferPtr>& inputs) {
  const Shape& in_shape = node.input(0).shape();
  const Shape::Dims in_strides = in_shape.Strides();
  switch (node.op()) {
    case OpKind::kReshape:
      return inputs[0];
    case OpKind::kPermute: {
      Shape::Dims strides;
      for (int64_t axis : node.attrs().ints) strides.push_back(in_strides[axis]);
      return Gather(*inputs[0], node.shape(), strides, 0);
    }
    case OpKind::kBroadcast:
      return Gather(*inputs[0], node.shape(), BroadcastStrides(in_shape, node.shape()), 0);
    case OpKind::kSlice: {
      const std::vector<int64_t>& a = node.attrs().ints;
      Shape::Dims strides = in_strides;
      strides[a[0]] *= a.size() > 3 ? a[3] : 1;
      return Gather(*inputs[0], node.shape(), strides, a[1] * in_strides[a[0]]);
    }
    case OpKind::kFlip: {  // backwards from the last element along each flipped axis
      Shape::Dims strides = in_strides;
      int64_t offset = 0;
      for (int64_t axis : node.attrs().ints) {
        offset += (in_shape[axis] - 1) * in_strides[axis];
        strides[axis] = -in_strides[axis];
      }
      return Gather(*inputs[0], node.shape(), strides, offset);
    }
    case OpKind::kConcat:
      return Concat(node, inputs);
    default:
      return absl::InternalError(absl::StrCat("not a structural op: ", OpName(node.op())));
  }
}

}  // namespace tessel::cpu
