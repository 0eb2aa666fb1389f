#include "ops/scan.h"

#include "ops/record.h"
#include "ops/structure.h"

namespace tessel {
namespace {

using ops_internal::CheckedAxis;
using ops_internal::CheckedLineAxis;
using ops_internal::CommonDevice;
using ops_internal::Record;

Tensor Scan(OpKind op, const Tensor& x, int axis) {
  const absl::string_view name = OpName(op);
  OpErrorScope scope(name);
  const Device device = CommonDevice(name, {&x});
  if (x.rank() == 0) {  // a scalar is its own running sum
    CheckedLineAxis(name, x, axis);
    return reshape(Scan(op, reshape(x, {1}), 0), {});
  }
  Attrs attrs;
  attrs.ints = {CheckedAxis(name, x, axis)};
  const DType out = IsFloating(x.dtype()) ? x.dtype() : DType::kI64;
  return Record(op, out, device, x.shape(), {x.node_ptr()}, std::move(attrs));
}

}  // namespace

Tensor cumsum(const Tensor& x, int axis) { return Scan(OpKind::kCumsum, x, axis); }
Tensor cumprod(const Tensor& x, int axis) { return Scan(OpKind::kCumprod, x, axis); }

}  // namespace tessel
