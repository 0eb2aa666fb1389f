#include "ops/structure_composite.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "core/execution.h"
#include "ops/creation.h"
#include "ops/pointwise.h"
#include "ops/record.h"
#include "ops/structure.h"

namespace tessel {
namespace {

using ops_internal::CheckedAxis;
using ops_internal::CommonDevice;
using ops_internal::Describe;

// `axis` of a result of rank `rank`, which may count from the end.
int NewAxis(absl::string_view op, const Tensor& x, int axis, int rank) {
  const int a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    ThrowOpError(op, "axis ", axis, " is out of range for ", Describe(x), " (an axis in [", -rank,
                 ", ", rank - 1, "])");
  }
  return a;
}

Shape::Dims WithAxis(const Shape& shape, int axis, int64_t extent) {
  Shape::Dims dims = shape.dims();
  dims.insert(dims.begin() + axis, extent);
  return dims;
}

// `x` where col - row of its last two axes is <= `diagonal` (lower) or >= it, else 0.
Tensor Triangle(absl::string_view op, const Tensor& x, int64_t diagonal, bool lower) {
  OpErrorScope scope(op);
  const Device device = CommonDevice(op, {&x});
  if (x.rank() < 2) ThrowOpError(op, "needs rank >= 2, got ", Describe(x));
  const int64_t rows = x.shape()[x.rank() - 2], cols = x.shape()[x.rank() - 1];
  // Past these bounds every element is on one side: the i32 comparison cannot overflow.
  diagonal = std::clamp<int64_t>(diagonal, -rows - 1, cols + 1);
  const DeviceOfScope on(x);
  const Tensor row = reshape(arange(rows, DType::kI32, device), {rows, 1});
  const Tensor col = reshape(arange(cols, DType::kI32, device), {1, cols});
  const Tensor d = full({}, static_cast<double>(diagonal), DType::kI32, device);
  const Tensor kept = lower ? le(col - row, d) : ge(col - row, d);
  return where(kept, x, full({}, 0, x.dtype(), device));
}

}  // namespace

Tensor squeeze(const Tensor& x, int axis) {
  OpErrorScope scope("squeeze");
  CommonDevice("squeeze", {&x});
  const int a = CheckedAxis("squeeze", x, axis);
  if (x.shape()[a] != 1) return x;
  Shape::Dims dims = x.shape().dims();
  dims.erase(dims.begin() + a);
  return reshape(x, Shape(dims));
}

Tensor unsqueeze(const Tensor& x, int axis) {
  OpErrorScope scope("unsqueeze");
  CommonDevice("unsqueeze", {&x});
  const int a = NewAxis("unsqueeze", x, axis, x.rank() + 1);
  return reshape(x, Shape(WithAxis(x.shape(), a, 1)));
}

Tensor stack(const std::vector<Tensor>& xs, int axis) {
  OpErrorScope scope("stack");
  if (xs.empty()) ThrowOpError("stack", "needs at least one tensor");
  CheckedNode(xs[0], "stack");
  const int a = NewAxis("stack", xs[0], axis, xs[0].rank() + 1);
  std::vector<Tensor> parts;
  for (const Tensor& x : xs) {
    CommonDevice("stack", {&xs[0], &x});
    if (x.shape() != xs[0].shape()) {
      ThrowOpError("stack", "needs tensors of one shape: ", Describe(xs[0]), " and ", Describe(x));
    }
    parts.push_back(reshape(x, Shape(WithAxis(x.shape(), a, 1))));
  }
  return concat(parts, a);
}

std::vector<Tensor> split(const Tensor& x, std::vector<int64_t> sizes, int axis) {
  OpErrorScope scope("split");
  CommonDevice("split", {&x});
  const int a = CheckedAxis("split", x, axis);
  const int64_t extent = x.shape()[a];
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) ThrowOpError("split", "negative size in [", absl::StrJoin(sizes, ","), "]");
    if (s > extent - total) {  // compared so, the sum never wraps
      ThrowOpError("split", "sizes [", absl::StrJoin(sizes, ","), "] add up to more than the ",
                   "extent ", extent, " of axis ", a, " of ", Describe(x));
    }
    total += s;
  }
  if (total != extent) {
    ThrowOpError("split", "sizes [", absl::StrJoin(sizes, ","), "] add up to ", total,
                 ", not the extent ", extent, " of axis ", a, " of ", Describe(x));
  }
  std::vector<Tensor> pieces;
  int64_t start = 0;
  for (int64_t s : sizes) {
    pieces.push_back(slice(x, a, start, start + s));
    start += s;
  }
  return pieces;
}

std::vector<Tensor> chunk(const Tensor& x, int n, int axis) {
  OpErrorScope scope("chunk");
  CommonDevice("chunk", {&x});
  const int a = CheckedAxis("chunk", x, axis);
  if (n < 1) ThrowOpError("chunk", "needs at least one chunk, got ", n);
  const int64_t extent = x.shape()[a];
  if (extent == 0) return std::vector<Tensor>(n, x);
  const int64_t size = (extent + n - 1) / n;
  std::vector<int64_t> sizes;
  for (int64_t start = 0; start < extent; start += size) {
    sizes.push_back(std::min(size, extent - start));
  }
  return split(x, sizes, a);
}

Tensor pad(const Tensor& x, std::vector<int64_t> before, std::vector<int64_t> after, double value) {
  OpErrorScope scope("pad");
  const Device device = CommonDevice("pad", {&x});
  if (static_cast<int>(before.size()) != x.rank() || static_cast<int>(after.size()) != x.rank()) {
    ThrowOpError("pad", "needs one entry per axis of ", Describe(x), ", got before [",
                 absl::StrJoin(before, ","), "] and after [", absl::StrJoin(after, ","), "]");
  }
  const DeviceOfScope on(x);
  Tensor y = x;
  for (int a = 0; a < x.rank(); ++a) {
    const int64_t extent = x.shape()[a];
    if (before[a] < -extent || after[a] < -extent) {  // (and -INT64_MIN would wrap)
      ThrowOpError("pad", "removes more than the ", extent, " elements of axis ", a, " of ",
                   Describe(x), " (before [", absl::StrJoin(before, ","), "], after [",
                   absl::StrJoin(after, ","), "])");
    }
    const int64_t cut_before = std::max<int64_t>(0, -before[a]);
    const int64_t cut_after = std::max<int64_t>(0, -after[a]);
    if (cut_before + cut_after > extent) {
      ThrowOpError("pad", "removes ", cut_before + cut_after, " elements of axis ", a, " of ",
                   Describe(x), ", which has ", extent);
    }
    y = slice(y, a, cut_before, extent - cut_after);
    auto block = [&](int64_t n) {
      Shape shape = y.shape();
      shape[a] = n;
      return full(shape, value, x.dtype(), device);
    };
    std::vector<Tensor> parts;
    if (before[a] > 0) parts.push_back(block(before[a]));
    parts.push_back(y);
    if (after[a] > 0) parts.push_back(block(after[a]));
    y = concat(parts, a);
  }
  return y;
}

Tensor repeat(const Tensor& x, std::vector<int64_t> times) {
  OpErrorScope scope("repeat");
  CommonDevice("repeat", {&x});
  const int rank = static_cast<int>(times.size());
  if (rank < x.rank() || std::any_of(times.begin(), times.end(), [](int64_t t) { return t < 0; })) {
    ThrowOpError("repeat", "times [", absl::StrJoin(times, ","),
                 "] needs a count >= 0 for each axis of ", Describe(x));
  }
  // Each axis s becomes (1, s), broadcast to (t, s), then merged: t copies of the axis.
  Shape::Dims single, tiled, merged;
  for (int i = 0; i < rank; ++i) {
    const int from = i - (rank - x.rank());
    const int64_t s = from >= 0 ? x.shape()[from] : 1;
    single.insert(single.end(), {1, s});
    tiled.insert(tiled.end(), {times[i], s});
    merged.push_back(times[i] * s);
  }
  return reshape(broadcast_to(reshape(x, Shape(single)), Shape(tiled)), Shape(merged));
}

Tensor tril(const Tensor& x, int64_t diagonal) { return Triangle("tril", x, diagonal, true); }
Tensor triu(const Tensor& x, int64_t diagonal) { return Triangle("triu", x, diagonal, false); }

}  // namespace tessel
