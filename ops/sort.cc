#include "ops/sort.h"

#include <cmath>
#include <optional>
#include <vector>

#include "ops/creation.h"
#include "ops/indexing.h"
#include "ops/pointwise.h"
#include "ops/record.h"
#include "ops/reduce.h"
#include "ops/structure.h"

namespace tessel {
namespace {

using ops_internal::CheckedAxis;
using ops_internal::CommonDevice;
using ops_internal::Describe;
using ops_internal::Record;

// Top-k on CUDA for k up to this is composed of k extreme reductions (TopKByExtremes); a
// sort kernel for larger k is not built yet.
constexpr int64_t kMaxComposedTopK = 32;

// The indices of the first k (all when k is empty) elements of x sorted along `axis`; a
// scalar sorts as one element.
Tensor SortedIndices(absl::string_view op, const Tensor& x, int axis, bool descending,
                     std::optional<int64_t> k) {
  const Device device = CommonDevice(op, {&x});
  const bool composed = device == Device::kCUDA && k.has_value() && *k <= kMaxComposedTopK;
  if (!composed) ops_internal::CheckDeviceHasOp(op, device);
  if (x.rank() == 0) {
    const Tensor indices = SortedIndices(op, reshape(x, {1}), axis, descending, k);
    return indices.numel() == 1 ? reshape(indices, {}) : indices;
  }
  const int a = CheckedAxis(op, x, axis);
  const int64_t count = k.value_or(x.shape()[a]);
  if (count < 0 || count > x.shape()[a]) {
    ThrowOpError(op, "k = ", count, " is out of range for axis ", a, " of ", Describe(x));
  }
  if (composed) return ops_internal::TopKByExtremes(x, count, a, descending);
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
  const Tensor indices = SortedIndices(op, x, axis, descending, k);
  if (x.rank() > 0) return {gather(x, CheckedAxis(op, x, axis), indices), indices};
  const Tensor flat = reshape(indices, {indices.numel()});
  return {reshape(gather(reshape(x, {1}), 0, flat), indices.shape()), indices};
}

}  // namespace

Tensor ops_internal::TopKByExtremes(const Tensor& x_in, int64_t k, int axis, bool largest) {
  const Tensor x = x_in.dtype() == DType::kBool ? cast(x_in, DType::kI32) : x_in;
  const Device device = x.device();
  Shape::Dims dims = x.shape().dims();
  const int64_t n = dims[axis];
  dims[axis] = k;
  if (k == 0) return zeros(Shape(dims), DType::kI64, device);
  Shape::Dims along(x.rank(), 1);
  along[axis] = n;
  const Tensor position = reshape(arange(n, DType::kI64, device), Shape(along));
  const Tensor nan = isnan(x);
  const double none = static_cast<double>(n);  // no position: the minimum's identity here
  auto first = [&](const Tensor& hit) { return min(where(hit, position, none), {axis}, true); };
  Tensor taken = zeros(x.shape(), DType::kBool, device);
  std::vector<Tensor> picks;
  for (int64_t j = 0; j < k; ++j) {
    Tensor pick;
    if (largest) {  // NaN first: the maximum propagates it
      const Tensor extreme = max(where(taken, -INFINITY, x), {axis}, true);
      const Tensor equal = logical_or(eq(x, extreme), logical_and(nan, isnan(extreme)));
      pick = first(logical_and(logical_not(taken), equal));
    } else {  // NaN last: the smallest of the rest, else the first NaN left
      const Tensor out = logical_or(taken, nan);
      const Tensor extreme = min(where(out, INFINITY, x), {axis}, true);
      const Tensor number = first(logical_and(logical_not(out), eq(x, extreme)));
      pick = where(lt(number, none), number, first(logical_and(logical_not(taken), nan)));
    }
    picks.push_back(pick);
    taken = logical_or(taken, eq(position, pick));
  }
  return concat(picks, axis);
}

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
