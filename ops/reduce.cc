#include "ops/reduce.h"

#include <algorithm>

#include "core/execution.h"
#include "ops/creation.h"
#include "ops/pointwise.h"
#include "ops/record.h"
#include "ops/structure.h"

namespace tessel {
namespace {

using ops_internal::CheckedAxes;
using ops_internal::CommonDevice;
using ops_internal::Describe;
using ops_internal::Record;

Tensor Reduce(OpKind op, const Tensor& x, const std::vector<int>& axes, bool keepdim) {
  const absl::string_view name = OpName(op);
  const Device device = CommonDevice(name, {&x});
  std::vector<int64_t> reduced = CheckedAxes(name, x, axes);
  DType out = x.dtype();
  // As PyTorch: sums and products of bool and i32 are i64 (an i32 sum of a few million
  // elements may wrap; cumsum and cumprod give i64 too).
  if ((op == OpKind::kSum || op == OpKind::kProd) && (out == DType::kBool || out == DType::kI32)) {
    out = DType::kI64;
  }
  if (op == OpKind::kMean && !IsFloating(out)) {
    ThrowOpError(name, "needs a floating operand, got ", Describe(x), "; cast first");
  }
  Shape::Dims dims;
  for (int i = 0; i < x.rank(); ++i) {
    const bool is_reduced = std::binary_search(reduced.begin(), reduced.end(), i);
    if (is_reduced && x.shape()[i] == 0 && (op == OpKind::kMax || op == OpKind::kMin)) {
      ThrowOpError(name, "reduces the empty axis ", i, " of ", Describe(x),
                   ", which has no identity");
    }
    if (!is_reduced) {
      dims.push_back(x.shape()[i]);
    } else if (keepdim) {
      dims.push_back(1);
    }
  }
  Attrs attrs;
  attrs.ints = std::move(reduced);
  return Record(op, out, device, Shape(dims), {x.node_ptr()}, std::move(attrs));
}

}  // namespace

Tensor sum(const Tensor& x, std::vector<int> axes, bool keepdim) {
  return Reduce(OpKind::kSum, x, axes, keepdim);
}
Tensor mean(const Tensor& x, std::vector<int> axes, bool keepdim) {
  return Reduce(OpKind::kMean, x, axes, keepdim);
}
Tensor max(const Tensor& x, std::vector<int> axes, bool keepdim) {
  return Reduce(OpKind::kMax, x, axes, keepdim);
}
Tensor min(const Tensor& x, std::vector<int> axes, bool keepdim) {
  return Reduce(OpKind::kMin, x, axes, keepdim);
}
Tensor prod(const Tensor& x, std::vector<int> axes, bool keepdim) {
  return Reduce(OpKind::kProd, x, axes, keepdim);
}

namespace {

// How many elements each result of reducing `axes` of x combines.
int64_t ReducedCount(absl::string_view op, const Tensor& x, const std::vector<int>& axes) {
  int64_t n = 1;
  for (int64_t a : CheckedAxes(op, x, axes)) n *= x.shape()[a];
  return n;
}

// The truth of each element: x itself for bool, x != 0 otherwise.
Tensor Truth(const Tensor& x) { return x.dtype() == DType::kBool ? x : ne(x, 0.0); }

// x in f32 if it is a 16-bit float (composites accumulate there), else x; floating only.
Tensor Widened(absl::string_view op, const Tensor& x) {
  CommonDevice(op, {&x});
  if (!IsFloating(x.dtype())) {
    ThrowOpError(op, "needs a floating operand, got ", Describe(x), "; cast first");
  }
  return IsHalfFloat(x.dtype()) ? cast(x, DType::kF32) : x;
}

// argmax/argmin compose max (or min), a comparison and a min over positions: one fused
// reduction on the GPU, like var and logsumexp. A NaN is the extreme (max and min propagate
// it), and the first position wins ties.
Tensor ArgExtreme(absl::string_view op, const Tensor& x, int axis, bool keepdim, bool largest) {
  OpErrorScope scope(op);
  const Device device = CommonDevice(op, {&x});
  if (x.dtype() == DType::kBool) {
    ThrowOpError(op, "does not take bool operands (", Describe(x), "); cast first");
  }
  if (x.rank() == 0) {  // a line of one
    ops_internal::CheckedLineAxis(op, x, axis);
    return ArgExtreme(op, reshape(x, {1}), 0, false, largest);
  }
  const int a = ops_internal::CheckedAxis(op, x, axis);
  const int64_t extent = x.shape()[a];
  if (extent == 0) {
    ThrowOpError(op, "reduces the empty axis ", a, " of ", Describe(x), ", which has no identity");
  }
  const Tensor extreme = largest ? max(x, {a}, true) : min(x, {a}, true);
  Tensor hit = eq(x, extreme);
  if (IsFloating(x.dtype())) hit = logical_or(hit, logical_and(isnan(x), isnan(extreme)));
  Shape::Dims along(x.rank(), 1);
  along[a] = extent;
  const DeviceOfScope on(x);
  const Tensor position = reshape(arange(extent, DType::kI64, device), Shape(along));
  // Every line has a hit (the extreme is one of its values), so a miss may read as the last
  // position: the result's range is then the axis's positions ([ Note -- value ranges ]),
  // and a gather at it needs no check.
  return min(where(hit, position, static_cast<double>(extent - 1)), {a}, keepdim);
}

}  // namespace

Tensor argmax(const Tensor& x, int axis, bool keepdim) {
  return ArgExtreme("argmax", x, axis, keepdim, /*largest=*/true);
}
Tensor argmin(const Tensor& x, int axis, bool keepdim) {
  return ArgExtreme("argmin", x, axis, keepdim, /*largest=*/false);
}

Tensor any(const Tensor& x, std::vector<int> axes, bool keepdim) {
  OpErrorScope scope("any");
  CommonDevice("any", {&x});
  if (ReducedCount("any", x, axes) == 0) {  // max has no identity: none is true
    return cast(sum(Truth(x), axes, keepdim), DType::kBool);
  }
  return max(Truth(x), axes, keepdim);
}

Tensor all(const Tensor& x, std::vector<int> axes, bool keepdim) {
  OpErrorScope scope("all");
  CommonDevice("all", {&x});
  ops_internal::CheckedAxes("all", x, axes);  // named on x, not on the bool tensor it negates
  return logical_not(any(logical_not(x), axes, keepdim));
}

Tensor var(const Tensor& x, std::vector<int> axes, bool keepdim, int64_t correction) {
  OpErrorScope scope("var");
  const Tensor w = Widened("var", x);
  const int64_t n = ReducedCount("var", x, axes);
  const Tensor deviation = w - mean(w, axes, /*keepdim=*/true);
  const double divisor = static_cast<double>(std::max<int64_t>(0, n - correction));
  return cast(sum(deviation * deviation, axes, keepdim) / divisor, x.dtype());
}

Tensor std(const Tensor& x, std::vector<int> axes, bool keepdim, int64_t correction) {
  OpErrorScope scope("std");
  CommonDevice("std", {&x});
  return sqrt(var(x, axes, keepdim, correction));
}

Tensor logsumexp(const Tensor& x, std::vector<int> axes, bool keepdim) {
  OpErrorScope scope("logsumexp");
  const Tensor w = Widened("logsumexp", x);
  if (ReducedCount("logsumexp", x, axes) == 0) {  // log of an empty sum
    return cast(log(sum(w, axes, keepdim)), x.dtype());
  }
  // An infinite maximum would make x - m NaN: such rows subtract 0 instead.
  const Tensor m = max(w, axes, /*keepdim=*/true);
  const Tensor shift = where(isfinite(m), m, 0.0);
  Tensor result = log(sum(exp(w - shift), axes, /*keepdim=*/true)) + shift;
  if (!keepdim) result = sum(result, axes, /*keepdim=*/false);  // drops the extent-1 axes
  return cast(result, x.dtype());
}

}  // namespace tessel
