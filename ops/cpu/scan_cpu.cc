// Running sums and products: each line along the axis accumulates in order, in double for
// floats (16-bit floats round each result once) and wrapping int64 for integers.
#include "ops/cpu/kernels.h"
#include "ops/cpu/strided.h"
#include "ops/cpu/wrapping.h"

namespace tessel::cpu {
namespace {

template <typename C>
BufferPtr Scan(const Node& node, const Buffer& in, const LineExtents& l) {
  std::vector<C> values = LoadBroadcast<C>(in, node.shape(), node.shape());
  const bool sum = node.op() == OpKind::kCumsum;
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < l.inner; ++i) {
      C* line = values.data() + o * l.along * l.inner + i;
      for (int64_t k = 1; k < l.along; ++k) {
        const C before = line[(k - 1) * l.inner];
        C& at = line[k * l.inner];
        at = sum ? WrapAdd(before, at) : WrapMul(before, at);
      }
    }
  }
  return StoreAs<C>(node.dtype(), values.data(), static_cast<int64_t>(values.size()));
}

}  // namespace

absl::StatusOr<BufferPtr> RunScan(const Node& node, const InputBuffers& inputs) {
  const LineExtents e = ExtentsAround(node.shape(), static_cast<int>(node.attrs().ints[0]));
  if (IsFloating(node.dtype())) return Scan<double>(node, *inputs[0], e);
  return Scan<int64_t>(node, *inputs[0], e);
}

}  // namespace tessel::cpu
