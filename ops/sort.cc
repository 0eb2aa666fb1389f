#include "ops/sort.h"

#include <optional>

#include "ops/indexing.h"
#include "ops/record.h"
#include "ops/structure.h"

namespace tessel {
namespace {

using ops_internal::CheckedAxis;
using ops_internal::CommonDevice;
using ops_internal::Describe;
using ops_internal::Record;

// The indices of the first k elements of x sorted along `axis` (x of rank 1 or more).
Tensor SortedIndices(absl::string_view op, const Tensor& x, int axis, bool descending, int64_t k) {
  const Device device = CommonDevice(op, {&x});
  ops_internal::CheckDeviceHasOp(op, device);
  const int a = CheckedAxis(op, x, axis);
  if (k < 0 || k > x.shape()[a]) {
    ThrowOpError(op, "k = ", k, " is out of range for axis ", a, " of ", Describe(x));
  }
  Shape::Dims dims = x.shape().dims();
  dims[a] = k;
  Attrs attrs;
  attrs.ints = {a, descending ? 1 : 0, k};
  return Record(OpKind::kArgsort, DType::kI64, device, Shape(dims), {x.node_ptr()},
                std::move(attrs));
}

// {values, indices} of the first k of x sorted along `axis`; a scalar sorts as one element.
std::pair<Tensor, Tensor> Sorted(absl::string_view op, const Tensor& x, int axis, bool descending,
                                 std::optional<int64_t> k) {
  CheckedNode(x, op);
  if (x.rank() == 0) {
    auto [values, indices] = Sorted(op, reshape(x, {1}), axis, descending, k);
    if (values.numel() == 1) return {reshape(values, {}), reshape(indices, {})};
    return {values, indices};
  }
  const int a = CheckedAxis(op, x, axis);
  Tensor indices = SortedIndices(op, x, a, descending, k.value_or(x.shape()[a]));
  return {gather(x, a, indices), indices};
}

}  // namespace

Tensor argsort(const Tensor& x, int axis, bool descending) {
  return Sorted("argsort", x, axis, descending, std::nullopt).second;
}

std::pair<Tensor, Tensor> sort(const Tensor& x, int axis, bool descending) {
  return Sorted("sort", x, axis, descending, std::nullopt);
}

std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int axis, bool largest) {
  return Sorted("topk", x, axis, largest, k);
}

}  // namespace tessel
