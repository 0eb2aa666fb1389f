#include "core/value_range.h"

#include <algorithm>
#include <limits>

#include "absl/numeric/int128.h"
#include "core/element.h"
#include "core/node.h"

namespace tessel {
namespace {

using Wide = absl::int128;
using Range = std::optional<ValueRange>;

// Every value of an integral dtype.
ValueRange Limits(DType dtype) {
  if (dtype == DType::kI32) {
    return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
  }
  if (dtype == DType::kBool) return {0, 1};
  return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
}

// [lo, hi] as a range of `dtype`, or none where a value could fall outside the dtype (and wrap).
Range Fit(DType dtype, Wide lo, Wide hi) {
  const ValueRange limits = Limits(dtype);
  if (lo < limits.lo || hi > limits.hi) return std::nullopt;
  return ValueRange{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

// A node's range, or where none is known, its dtype's (a remainder bounds any dividend).
Range Bounds(const Node& n) {
  if (n.range().has_value() || IsFloating(n.dtype())) return n.range();
  return Limits(n.dtype());
}

Wide Magnitude(Wide v) { return v < 0 ? -v : v; }

Range Union(const Range& a, const Range& b) {
  if (!a || !b) return std::nullopt;
  return ValueRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
}

Range Product(DType dtype, const ValueRange& a, const ValueRange& b) {
  const Wide corners[] = {Wide(a.lo) * b.lo, Wide(a.lo) * b.hi, Wide(a.hi) * b.lo,
                          Wide(a.hi) * b.hi};
  return Fit(dtype, *std::min_element(std::begin(corners), std::end(corners)),
             *std::max_element(std::begin(corners), std::end(corners)));
}

// C's fmod (the sign of x; a divisor of 0 or -1 gives 0): |r| < |y|, and r lies between 0 and x.
ValueRange Fmod(const ValueRange& x, const ValueRange& y) {
  const Wide largest = std::max(Magnitude(Wide(y.lo)), Magnitude(Wide(y.hi)));
  const Wide reach = largest > 0 ? largest - 1 : 0;
  return ValueRange{static_cast<int64_t>(std::min(Wide(0), std::max(Wide(x.lo), -reach))),
                    static_cast<int64_t>(std::max(Wide(0), std::min(Wide(x.hi), reach)))};
}

// Python's %: the sign of y, |r| < |y| (a divisor of 0 gives 0).
ValueRange Remainder(const ValueRange& x, const ValueRange& y) {
  if (x.lo >= 0 && y.lo > 0) return ValueRange{0, std::min(x.hi, y.hi - 1)};
  return ValueRange{y.lo < 0 ? y.lo + 1 : 0, y.hi > 0 ? y.hi - 1 : 0};
}

Range Elementwise(OpKind op, DType dtype, const Range& a, const Range& b) {
  if (op == OpKind::kWhere) return Union(a, b);  // a, b: the two branches
  if (!a) return std::nullopt;
  switch (op) {
    case OpKind::kCast:
    case OpKind::kFloor:
    case OpKind::kCeil:
    case OpKind::kRound:
    case OpKind::kTrunc:
      return Fit(dtype, a->lo, a->hi);
    case OpKind::kNeg:
      return Fit(dtype, -Wide(a->hi), -Wide(a->lo));
    case OpKind::kAbs: {
      const Wide lo = a->lo >= 0 ? Wide(a->lo) : a->hi <= 0 ? -Wide(a->hi) : Wide(0);
      return Fit(dtype, lo, std::max(Magnitude(Wide(a->lo)), Magnitude(Wide(a->hi))));
    }
    case OpKind::kRelu:
      return ValueRange{std::max<int64_t>(a->lo, 0), std::max<int64_t>(a->hi, 0)};
    case OpKind::kSign:
      return ValueRange{a->lo < 0 ? -1 : a->lo > 0, a->hi < 0 ? -1 : a->hi > 0};
    default:
      break;
  }
  if (!b) return std::nullopt;
  switch (op) {
    case OpKind::kAdd:
      return Fit(dtype, Wide(a->lo) + b->lo, Wide(a->hi) + b->hi);
    case OpKind::kSub:
      return Fit(dtype, Wide(a->lo) - b->hi, Wide(a->hi) - b->lo);
    case OpKind::kMul:
      return Product(dtype, *a, *b);
    case OpKind::kMaximum:
      return ValueRange{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
    case OpKind::kMinimum:
      return ValueRange{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
    case OpKind::kFmod:
      return Fmod(*a, *b);
    case OpKind::kRemainder:
      return Remainder(*a, *b);
    default:
      return std::nullopt;
  }
}

Range Reduction(OpKind op, DType dtype, const Shape& shape, const Node& input) {
  const Range& in = input.range();
  const int64_t count = shape.numel() > 0 ? input.shape().numel() / shape.numel() : 0;
  if (!in || count == 0) return std::nullopt;  // an empty reduction gives its identity
  switch (op) {
    case OpKind::kMax:
    case OpKind::kMin:
      return in;
    case OpKind::kSum:
      return Fit(dtype, Wide(in->lo) * count, Wide(in->hi) * count);
    default:
      return std::nullopt;
  }
}

// full(value) as stored: rounded toward zero, saturated as the CPU stores it.
Range Constant(DType dtype, double value) {
  uint64_t stored = 0;
  StoreFromDouble(dtype, &stored, 0, value);
  const auto v = static_cast<int64_t>(LoadAsDouble(dtype, &stored, 0));
  return ValueRange{v, v};
}

}  // namespace

Range RangeOfHostData(DType dtype, const void* data, int64_t n) {
  if (IsFloating(dtype) || n == 0) return std::nullopt;
  ValueRange r{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
  auto visit = [&](auto* values) {
    for (int64_t i = 0; i < n; ++i) {
      r.lo = std::min<int64_t>(r.lo, values[i]);
      r.hi = std::max<int64_t>(r.hi, values[i]);
    }
  };
  if (dtype == DType::kI32) visit(static_cast<const int32_t*>(data));
  if (dtype == DType::kI64) visit(static_cast<const int64_t*>(data));
  if (dtype == DType::kBool) visit(static_cast<const uint8_t*>(data));
  return r;
}

Range RangeOfOp(OpKind op, DType dtype, const Shape& shape, const Attrs& attrs,
                absl::Span<const Node* const> inputs) {
  if (IsFloating(dtype)) return std::nullopt;
  const OpCategory category = GetOpInfo(op).category;
  Range range;
  if (op == OpKind::kFull) {
    range = Constant(dtype, attrs.value);
  } else if (op == OpKind::kArange) {
    range = Fit(dtype, 0, std::max<int64_t>(shape[0] - 1, 0));
  } else if (op == OpKind::kArgsort) {
    const int64_t positions = inputs[0]->shape()[attrs.ints.at(0)];
    range = Fit(dtype, 0, std::max<int64_t>(positions - 1, 0));
  } else if (category == OpCategory::kElementwise) {
    const bool where = op == OpKind::kWhere;
    const Range none;
    range = Elementwise(op, dtype, Bounds(*inputs[where ? 1 : 0]),
                        inputs.size() > 1 ? Bounds(*inputs[where ? 2 : 1]) : none);
  } else if (category == OpCategory::kReduce) {
    range = Reduction(op, dtype, shape, *inputs[0]);
  } else if (category == OpCategory::kView || category == OpCategory::kConcat) {
    range = inputs[0]->range();
    for (const Node* in : inputs.subspan(1)) range = Union(range, in->range());
  } else if (op == OpKind::kGather && inputs[0]->shape().numel() > 0) {
    range = inputs[0]->range();  // picks x's values (from an empty x: 0, and errors)
  }
  // Comparisons, logical ops and casts to bool: 0 or 1, whatever the inputs.
  if (dtype == DType::kBool) return ValueRange{0, 1};
  return range;
}

}  // namespace tessel
