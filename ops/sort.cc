#include "ops/sort.h"

#include <optional>
#include <vector>

#include "ops/indexing.h"
#include "ops/record.h"
#include "ops/structure.h"

namespace tessel {
namespace {

using ops_internal::CheckedAxis;
using ops_internal::CheckedLineAxis;
using ops_internal::CommonDevice;
using ops_internal::Describe;
using ops_internal::Record;

using ops_internal::kMaxCudaSortLine;

// The indices of the first k (all when k is empty) elements of x sorted along `axis`; a
// scalar sorts as one element.
Tensor SortedIndices(absl::string_view op, const Tensor& x, int axis, bool descending,
                     std::optional<int64_t> k) {
  OpErrorScope scope(op);
  const Device device = CommonDevice(op, {&x});
  if (x.rank() == 0) {  // a line of one
    CheckedLineAxis(op, x, axis);
    if (k && (*k < 0 || *k > 1)) {
      ThrowOpError(op, "k = ", *k, " is out of range for ", Describe(x), " (one element)");
    }
    const Tensor indices = SortedIndices(op, reshape(x, {1}), 0, descending, k);
    return indices.numel() == 1 ? reshape(indices, {}) : indices;
  }
  const int a = CheckedAxis(op, x, axis);
  const int64_t count = k.value_or(x.shape()[a]);
  if (count < 0 || count > x.shape()[a]) {
    ThrowOpError(op, "k = ", count, " is out of range for axis ", a, " of ", Describe(x));
  }
  if (device == Device::kCUDA && x.shape()[a] > kMaxCudaSortLine) {
    ThrowOpError(op, "sorting lines of ", x.shape()[a], " elements (axis ", a, " of ", Describe(x),
                 ") on CUDA is not built yet (at most ", kMaxCudaSortLine, ")");
  }
  Shape::Dims dims = x.shape().dims();
  dims[a] = count;
  Attrs attrs;
  attrs.ints = {a, descending ? 1 : 0, count};
  return Record(OpKind::kArgsort, DType::kI64, device, Shape(dims), {x.node_ptr()},
                std::move(attrs));
}

// {values, indices}: the indices above and x's values at them.
std::pair<Tensor, Tensor> Sorted(absl::string_view op, const Tensor& x, int axis, bool descending,
                                 std::optional<int64_t> k) {
  OpErrorScope scope(op);
  const Tensor indices = SortedIndices(op, x, axis, descending, k);
  if (x.rank() > 0) return {gather(x, CheckedAxis(op, x, axis), indices), indices};
  const Tensor flat = reshape(indices, {indices.numel()});
  return {reshape(gather(reshape(x, {1}), 0, flat), indices.shape()), indices};
}

}  // namespace

Tensor argsort(const Tensor& x, int axis, bool descending) {
  return SortedIndices("argsort", x, axis, descending, std::nullopt);
}

std::pair<Tensor, Tensor> sort(const Tensor& x, int axis, bool descending) {
  return Sorted("sort", x, axis, descending, std::nullopt);
}

std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int axis, bool largest) {
  return Sorted("topk", x, axis, largest, k);
}

}  // namespace tessel
