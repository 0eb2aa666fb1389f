#include "ops/pointwise.h"

#include "ops/record.h"

namespace tessel {
namespace {

using ops_internal::CommonDevice;
using ops_internal::Describe;
using ops_internal::Record;
using ops_internal::ScalarTensor;

Shape BroadcastOrThrow(absl::string_view op, const Tensor& a, const Tensor& b) {
  absl::StatusOr<Shape> shape = BroadcastShapes(a.shape(), b.shape());
  if (!shape.ok()) {
    ThrowOpError(op, "operands ", Describe(a), " and ", Describe(b), " do not broadcast (",
                 shape.status().message(), ")");
  }
  return *shape;
}

enum class UnaryRule { kFloatResult, kKeepType, kBoolResult };

Tensor Unary(OpKind op, const Tensor& x, UnaryRule rule) {
  const absl::string_view name = OpName(op);
  const Device device = CommonDevice(name, {&x});
  if (rule == UnaryRule::kBoolResult) {
    return Record(op, DType::kBool, device, x.shape(), {x.node_ptr()});
  }
  if (x.dtype() == DType::kBool) {
    // As PyTorch: bool counts as 0 and 1 where the result is a float (exp, sigmoid); negating
    // or rounding a bool is refused.
    if (rule != UnaryRule::kFloatResult) {
      ThrowOpError(name, "does not take bool operands (", Describe(x), "); cast first");
    }
    const Tensor as_float = Record(OpKind::kCast, DType::kF32, device, x.shape(), {x.node_ptr()});
    return Record(op, DType::kF32, device, x.shape(), {as_float.node_ptr()});
  }
  const DType out =
      rule == UnaryRule::kFloatResult && !IsFloating(x.dtype()) ? DType::kF32 : x.dtype();
  return Record(op, out, device, x.shape(), {x.node_ptr()});
}

enum class BinaryRule { kArithmetic, kDivision, kMinMax, kCompare, kLogical };

Tensor Binary(OpKind op, const Tensor& a, const Tensor& b, BinaryRule rule) {
  const absl::string_view name = OpName(op);
  const Device device = CommonDevice(name, {&a, &b});
  Shape shape = BroadcastOrThrow(name, a, b);
  DType out = Promote(a.dtype(), b.dtype());
  switch (rule) {
    case BinaryRule::kArithmetic:
      if (out == DType::kBool) {
        // As PyTorch: the sum of two bools is their `or`, the product their `and`.
        if (op == OpKind::kAdd || op == OpKind::kMul) {
          const OpKind logical = op == OpKind::kAdd ? OpKind::kLogicalOr : OpKind::kLogicalAnd;
          return Record(logical, out, device, std::move(shape), {a.node_ptr(), b.node_ptr()});
        }
        ThrowOpError(name, "does not take two bool operands (", Describe(a), ", ", Describe(b),
                     "); cast first");
      }
      break;
    case BinaryRule::kDivision:
      if (!IsFloating(out)) out = DType::kF32;
      break;
    case BinaryRule::kMinMax:
      break;
    case BinaryRule::kCompare:
    case BinaryRule::kLogical:
      out = DType::kBool;
      break;
  }
  return Record(op, out, device, std::move(shape), {a.node_ptr(), b.node_ptr()});
}

Tensor WithScalar(OpKind op, const Tensor& a, double b, BinaryRule rule) {
  CheckedNode(a, OpName(op));
  const DType scalar = PromoteWithScalar(a.dtype(), b);
  if (op == OpKind::kPow && IsInteger(scalar) && b < 0) {  // PyTorch refuses it too
    ThrowOpError("pow", "integers to negative integer powers are not allowed: ", Describe(a),
                 " to the power ", b);
  }
  return Binary(op, a, ScalarTensor(b, scalar, a), rule);
}

Tensor ScalarWith(OpKind op, double a, const Tensor& b, BinaryRule rule) {
  CheckedNode(b, OpName(op));
  return Binary(op, ScalarTensor(a, PromoteWithScalar(b.dtype(), a), b), b, rule);
}

}  // namespace

// The unary functions: name, OpKind, result rule.
#define TESSEL_UNARY_OPS(X)           \
  X(neg, kNeg, kKeepType)             \
  X(abs, kAbs, kKeepType)             \
  X(exp, kExp, kFloatResult)          \
  X(log, kLog, kFloatResult)          \
  X(sqrt, kSqrt, kFloatResult)        \
  X(rsqrt, kRsqrt, kFloatResult)      \
  X(sin, kSin, kFloatResult)          \
  X(cos, kCos, kFloatResult)          \
  X(tanh, kTanh, kFloatResult)        \
  X(erf, kErf, kFloatResult)          \
  X(sigmoid, kSigmoid, kFloatResult)  \
  X(relu, kRelu, kKeepType)           \
  X(floor, kFloor, kKeepType)         \
  X(ceil, kCeil, kKeepType)           \
  X(round, kRound, kKeepType)         \
  X(trunc, kTrunc, kKeepType)         \
  X(sign, kSign, kKeepType)           \
  X(log1p, kLog1p, kFloatResult)      \
  X(expm1, kExpm1, kFloatResult)      \
  X(isnan, kIsNan, kBoolResult)       \
  X(isinf, kIsInf, kBoolResult)       \
  X(isfinite, kIsFinite, kBoolResult) \
  X(logical_not, kLogicalNot, kBoolResult)

#define TESSEL_DEFINE_UNARY(name, kind, rule) \
  Tensor name(const Tensor& x) { return Unary(OpKind::kind, x, UnaryRule::rule); }
TESSEL_UNARY_OPS(TESSEL_DEFINE_UNARY)
#undef TESSEL_DEFINE_UNARY

Tensor cast(const Tensor& x, DType dtype) {
  const Device device = CommonDevice("cast", {&x});
  if (x.dtype() == dtype) return x;
  return Record(OpKind::kCast, dtype, device, x.shape(), {x.node_ptr()});
}

// The binary functions with tensor operands, and those taking a scalar on the right.
#define TESSEL_BINARY_OPS(X)            \
  X(add, kAdd, kArithmetic)             \
  X(sub, kSub, kArithmetic)             \
  X(mul, kMul, kArithmetic)             \
  X(div, kDiv, kDivision)               \
  X(pow, kPow, kArithmetic)             \
  X(maximum, kMaximum, kMinMax)         \
  X(minimum, kMinimum, kMinMax)         \
  X(remainder, kRemainder, kArithmetic) \
  X(fmod, kFmod, kArithmetic)           \
  X(atan2, kAtan2, kDivision)
#define TESSEL_LOGICAL_OPS(X)           \
  X(logical_and, kLogicalAnd, kLogical) \
  X(logical_or, kLogicalOr, kLogical)   \
  X(logical_xor, kLogicalXor, kLogical)
#define TESSEL_COMPARISON_OPS(X) \
  X(eq, kEq, kCompare)           \
  X(ne, kNe, kCompare)           \
  X(lt, kLt, kCompare)           \
  X(le, kLe, kCompare)           \
  X(gt, kGt, kCompare)           \
  X(ge, kGe, kCompare)

#define TESSEL_DEFINE_BINARY(name, kind, rule)           \
  Tensor name(const Tensor& a, const Tensor& b) {        \
    return Binary(OpKind::kind, a, b, BinaryRule::rule); \
  }
#define TESSEL_DEFINE_WITH_SCALAR(name, kind, rule)          \
  Tensor name(const Tensor& a, double b) {                   \
    return WithScalar(OpKind::kind, a, b, BinaryRule::rule); \
  }
#define TESSEL_DEFINE_SCALAR_WITH(name, kind, rule)          \
  Tensor name(double a, const Tensor& b) {                   \
    return ScalarWith(OpKind::kind, a, b, BinaryRule::rule); \
  }
TESSEL_BINARY_OPS(TESSEL_DEFINE_BINARY)
TESSEL_LOGICAL_OPS(TESSEL_DEFINE_BINARY)
TESSEL_COMPARISON_OPS(TESSEL_DEFINE_BINARY)
TESSEL_BINARY_OPS(TESSEL_DEFINE_WITH_SCALAR)
TESSEL_COMPARISON_OPS(TESSEL_DEFINE_WITH_SCALAR)
TESSEL_COMPARISON_OPS(TESSEL_DEFINE_SCALAR_WITH)
#undef TESSEL_DEFINE_BINARY
#undef TESSEL_DEFINE_WITH_SCALAR
#undef TESSEL_DEFINE_SCALAR_WITH

Tensor clamp(const Tensor& x, double lo, double hi) {
  OpErrorScope scope("clamp");
  return minimum(maximum(x, lo), hi);
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const Device device = CommonDevice("where", {&cond, &a, &b});
  if (cond.dtype() != DType::kBool) {
    ThrowOpError("where", "the condition must be bool, got ", Describe(cond));
  }
  Shape ab = BroadcastOrThrow("where", a, b);
  absl::StatusOr<Shape> shape = BroadcastShapes(cond.shape(), ab);
  if (!shape.ok()) {
    ThrowOpError("where", "condition ", Describe(cond), " does not broadcast with ", Describe(a),
                 " and ", Describe(b), " (", shape.status().message(), ")");
  }
  return Record(OpKind::kWhere, Promote(a.dtype(), b.dtype()), device, *shape,
                {cond.node_ptr(), a.node_ptr(), b.node_ptr()});
}

Tensor where(const Tensor& cond, double a, const Tensor& b) {
  CheckedNode(b, "where");
  return where(cond, ScalarTensor(a, PromoteWithScalar(b.dtype(), a), b), b);
}

Tensor where(const Tensor& cond, const Tensor& a, double b) {
  CheckedNode(a, "where");
  return where(cond, a, ScalarTensor(b, PromoteWithScalar(a.dtype(), b), a));
}

Tensor masked_fill(const Tensor& t, const Tensor& mask, double value) {
  OpErrorScope scope("masked_fill");
  CommonDevice("masked_fill", {&t, &mask});
  if (mask.dtype() != DType::kBool) {
    ThrowOpError("masked_fill", "the mask must be bool, got ", Describe(mask));
  }
  absl::StatusOr<Shape> shape = BroadcastShapes(mask.shape(), t.shape());
  if (!shape.ok() || *shape != t.shape()) {
    ThrowOpError("masked_fill", "mask ", Describe(mask), " does not broadcast to ", Describe(t));
  }
  // The fill takes t's type, as in PyTorch: an integer tensor's value truncated toward zero,
  // refused where outside the type.
  ops_internal::CheckIntegerFill("masked_fill", value, t.dtype(), Describe(t));
  return where(mask, ScalarTensor(value, t.dtype(), t), t);
}

bool IsComparison(OpKind op) {
  switch (op) {
    case OpKind::kEq:
    case OpKind::kNe:
    case OpKind::kLt:
    case OpKind::kLe:
    case OpKind::kGt:
    case OpKind::kGe:
      return true;
    default:
      return false;
  }
}

bool ReadsOperandValues(OpKind op) {
  switch (op) {
    case OpKind::kIsNan:
    case OpKind::kIsInf:
    case OpKind::kIsFinite:
    case OpKind::kLogicalNot:
    case OpKind::kLogicalAnd:
    case OpKind::kLogicalOr:
    case OpKind::kLogicalXor:
      return true;
    default:
      return IsComparison(op);
  }
}

DType ElementwiseOperandDType(OpKind op, DType result, DType a, DType b) {
  return ReadsOperandValues(op) ? Promote(a, b) : result;
}

Tensor operator-(const Tensor& x) { return neg(x); }
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, double b) { return add(a, b); }
Tensor operator-(const Tensor& a, double b) { return sub(a, b); }
Tensor operator*(const Tensor& a, double b) { return mul(a, b); }
Tensor operator/(const Tensor& a, double b) { return div(a, b); }
Tensor operator+(double a, const Tensor& b) {
  return ScalarWith(OpKind::kAdd, a, b, BinaryRule::kArithmetic);
}
Tensor operator-(double a, const Tensor& b) {
  return ScalarWith(OpKind::kSub, a, b, BinaryRule::kArithmetic);
}
Tensor operator*(double a, const Tensor& b) {
  return ScalarWith(OpKind::kMul, a, b, BinaryRule::kArithmetic);
}
Tensor operator/(double a, const Tensor& b) {
  return ScalarWith(OpKind::kDiv, a, b, BinaryRule::kDivision);
}

}  // namespace tessel
