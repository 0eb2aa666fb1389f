#include "ops/structure.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "ops/pointwise.h"
#include "ops/record.h"

namespace tessel {
namespace {

using ops_internal::CheckedAxis;
using ops_internal::CommonDevice;
using ops_internal::Describe;
using ops_internal::Record;

}  // namespace

Tensor reshape(const Tensor& x, Shape shape) {
  const Device device = CommonDevice("reshape", {&x});
  int inferred = -1;
  int64_t known = 1;
  for (int i = 0; i < shape.rank(); ++i) {
    if (shape[i] == -1 && inferred < 0) {
      inferred = i;
    } else if (shape[i] < 0) {
      ThrowOpError("reshape", "bad target shape ", shape.ToString(), " for ", Describe(x),
                   " (at most one -1, no other negative sizes)");
    } else {
      known *= shape[i];
    }
  }
  if (inferred >= 0 && known != 0 && x.numel() % known == 0) {
    shape[inferred] = x.numel() / known;
  }
  if (shape.numel() != x.numel() || (inferred >= 0 && shape[inferred] < 0)) {
    ThrowOpError("reshape", "cannot reshape ", Describe(x), " (", x.numel(), " elements) to ",
                 shape.ToString());
  }
  if (shape == x.shape()) return x;
  return Record(OpKind::kReshape, x.dtype(), device, shape, {x.node_ptr()});
}

Tensor permute(const Tensor& x, std::vector<int> perm) {
  const Device device = CommonDevice("permute", {&x});
  if (static_cast<int>(perm.size()) != x.rank()) {
    ThrowOpError("permute", "permutation [", absl::StrJoin(perm, ","), "] has ", perm.size(),
                 " entries for ", Describe(x));
  }
  std::vector<bool> seen(x.rank(), false);
  Attrs attrs;
  Shape::Dims dims;
  bool identity = true;
  for (int i = 0; i < x.rank(); ++i) {
    const int axis = CheckedAxis("permute", x, perm[i]);
    if (seen[axis]) {
      ThrowOpError("permute", "[", absl::StrJoin(perm, ","), "] is not a permutation");
    }
    seen[axis] = true;
    attrs.ints.push_back(axis);
    dims.push_back(x.shape()[axis]);
    identity = identity && axis == i;
  }
  if (identity) return x;
  return Record(OpKind::kPermute, x.dtype(), device, Shape(dims), {x.node_ptr()}, std::move(attrs));
}

Tensor transpose(const Tensor& x) {
  OpErrorScope scope("transpose");
  CommonDevice("transpose", {&x});
  if (x.rank() < 2) ThrowOpError("transpose", "needs rank >= 2, got ", Describe(x));
  std::vector<int> perm(x.rank());
  for (int i = 0; i < x.rank(); ++i) perm[i] = i;
  std::swap(perm[x.rank() - 1], perm[x.rank() - 2]);
  return permute(x, perm);
}

Tensor broadcast_to(const Tensor& x, Shape shape) {
  const Device device = CommonDevice("broadcast_to", {&x});
  absl::StatusOr<Shape> result = BroadcastShapes(x.shape(), shape);
  if (!result.ok() || *result != shape) {
    ThrowOpError("broadcast_to", "cannot broadcast ", Describe(x), " to ", shape.ToString());
  }
  if (shape == x.shape()) return x;
  return Record(OpKind::kBroadcast, x.dtype(), device, shape, {x.node_ptr()});
}

Tensor slice(const Tensor& x, int axis, int64_t start, int64_t end, int64_t step) {
  const Device device = CommonDevice("slice", {&x});
  const int a = CheckedAxis("slice", x, axis);
  if (step < 1) ThrowOpError("slice", "step ", step, " of ", Describe(x), " is not >= 1");
  const int64_t n = x.shape()[a];
  auto clamp = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
  start = clamp(start);
  end = std::max(start, clamp(end));
  const int64_t extent = end > start ? 1 + (end - start - 1) / step : 0;  // no overflow at any step
  if (extent <= 1) {  // one element or none: a plain slice of it
    step = 1;
    end = start + extent;
  }
  if (start == 0 && end == n && step == 1) return x;
  Shape shape = x.shape();
  shape[a] = extent;
  Attrs attrs;
  attrs.ints = {a, start, end};
  if (step > 1) attrs.ints.push_back(step);  // absent is 1: the key of step-1 slices is kept
  return Record(OpKind::kSlice, x.dtype(), device, shape, {x.node_ptr()}, std::move(attrs));
}

Tensor flip(const Tensor& x, std::vector<int> axes) {
  const Device device = CommonDevice("flip", {&x});
  std::vector<bool> flipped(x.rank(), false);
  for (int axis : axes) {
    const int a = CheckedAxis("flip", x, axis);
    if (flipped[a]) {
      ThrowOpError("flip", "axis ", axis, " appears twice in [", absl::StrJoin(axes, ","), "]");
    }
    flipped[a] = true;
  }
  Attrs attrs;
  for (int a = 0; a < x.rank(); ++a) {
    if (flipped[a] && x.shape()[a] > 1) attrs.ints.push_back(a);  // extent 1 flips to itself
  }
  if (attrs.ints.empty()) return x;
  return Record(OpKind::kFlip, x.dtype(), device, x.shape(), {x.node_ptr()}, std::move(attrs));
}

Tensor concat(const std::vector<Tensor>& xs, int axis) {
  OpErrorScope scope("concat");
  if (xs.empty()) ThrowOpError("concat", "needs at least one tensor");
  const Tensor& first = xs[0];
  CheckedNode(first, "concat");
  const int a = CheckedAxis("concat", first, axis);
  Shape shape = first.shape();
  shape[a] = 0;
  DType dtype = first.dtype();
  NodeInputs inputs;
  for (const Tensor& x : xs) {
    CommonDevice("concat", {&first, &x});
    bool match = x.rank() == first.rank();
    for (int i = 0; match && i < x.rank(); ++i) {
      match = i == a || x.shape()[i] == first.shape()[i];
    }
    if (!match) {
      ThrowOpError("concat", Describe(x), " does not match ", Describe(first), " outside axis ", a);
    }
    shape[a] += x.shape()[a];
    dtype = Promote(dtype, x.dtype());
    inputs.push_back(x.node_ptr());
  }
  if (xs.size() == 1) return first;
  // A kernel evaluates every operand of a concat at each position: many tensors are
  // concatenated by concats of at most kConcatFanIn, which the planner writes apart
  // (FusionOptions::max_concat_operands), so that no kernel's work grows with their count.
  constexpr size_t kConcatFanIn = 16;
  if (xs.size() > kConcatFanIn) {
    std::vector<Tensor> chunks;
    for (size_t i = 0; i < xs.size(); i += kConcatFanIn) {
      const size_t end = std::min(xs.size(), i + kConcatFanIn);
      std::vector<Tensor> chunk(xs.begin() + static_cast<std::ptrdiff_t>(i),
                                xs.begin() + static_cast<std::ptrdiff_t>(end));
      for (Tensor& t : chunk) t = t.dtype() == dtype ? t : cast(t, dtype);
      chunks.push_back(concat(chunk, a));
    }
    return concat(chunks, a);
  }
  Attrs attrs;
  attrs.ints = {a};
  return Record(OpKind::kConcat, dtype, first.device(), shape, std::move(inputs), std::move(attrs));
}

}  // namespace tessel
