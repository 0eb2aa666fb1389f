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

enum class UnaryRule { kFloatResult, kKeepType };

Tensor Unary(OpKind op, const Tensor& x, UnaryRule rule) {
  const absl::string_view name = OpName(op);
  const Device device = CommonDevice(name, {&x});
  if (x.dtype() == DType::kBool) {
    ThrowOpError(name, "does not take bool operands (", Describe(x), "); cast first");
  }
  const DType out =
      rule == UnaryRule::kFloatResult && !IsFloating(x.dtype()) ? DType::kF32 : x.dtype();
  return Record(op, out, device, x.shape(), {x.node_ptr()});
}

enum class BinaryRule { kArithmetic, kDivision, kMinMax, kCompare };

Tensor Binary(OpKind op, const Tensor& a, const Tensor& b, BinaryRule rule) {
  const absl::string_view name = OpName(op);
  const Device device = CommonDevice(name, {&a, &b});
  Shape shape = BroadcastOrThrow(name, a, b);
  DType out = Promote(a.dtype(), b.dtype());
  switch (rule) {
    case BinaryRule::kArithmetic:
      if (out == DType::kBool) {
        ThrowOpError(name, "does not take bool operands (", Describe(a), ", ", Describe(b),
                     "); cast first");
      }
      break;
    case BinaryRule::kDivision:
      if (!IsFloating(out)) out = DType::kF32;
      break;
    case BinaryRule::kMinMax:
      break;
    case BinaryRule::kCompare:
      out = DType::kBool;
      break;
  }
  return Record(op, out, device, std::move(shape), {a.node_ptr(), b.node_ptr()});
}

Tensor WithScalar(OpKind op, const Tensor& a, double b, BinaryRule rule) {
  CheckedNode(a, OpName(op));
  return Binary(op, a, ScalarTensor(b, PromoteWithScalar(a.dtype(), b), a.device()), rule);
}

Tensor ScalarWith(OpKind op, double a, const Tensor& b, BinaryRule rule) {
  CheckedNode(b, OpName(op));
  return Binary(op, ScalarTensor(a, PromoteWithScalar(b.dtype(), a), b.device()), b, rule);
}

}  // namespace

Tensor neg(const Tensor& x) { return Unary(OpKind::kNeg, x, UnaryRule::kKeepType); }
Tensor abs(const Tensor& x) { return Unary(OpKind::kAbs, x, UnaryRule::kKeepType); }
Tensor exp(const Tensor& x) { return Unary(OpKind::kExp, x, UnaryRule::kFloatResult); }
Tensor log(const Tensor& x) { return Unary(OpKind::kLog, x, UnaryRule::kFloatResult); }
Tensor sqrt(const Tensor& x) { return Unary(OpKind::kSqrt, x, UnaryRule::kFloatResult); }
Tensor rsqrt(const Tensor& x) { return Unary(OpKind::kRsqrt, x, UnaryRule::kFloatResult); }
Tensor sin(const Tensor& x) { return Unary(OpKind::kSin, x, UnaryRule::kFloatResult); }
Tensor cos(const Tensor& x) { return Unary(OpKind::kCos, x, UnaryRule::kFloatResult); }
Tensor tanh(const Tensor& x) { return Unary(OpKind::kTanh, x, UnaryRule::kFloatResult); }
Tensor erf(const Tensor& x) { return Unary(OpKind::kErf, x, UnaryRule::kFloatResult); }
Tensor sigmoid(const Tensor& x) { return Unary(OpKind::kSigmoid, x, UnaryRule::kFloatResult); }
Tensor relu(const Tensor& x) { return Unary(OpKind::kRelu, x, UnaryRule::kKeepType); }

Tensor cast(const Tensor& x, DType dtype) {
  const Device device = CommonDevice("cast", {&x});
  if (x.dtype() == dtype) return x;
  return Record(OpKind::kCast, dtype, device, x.shape(), {x.node_ptr()});
}

Tensor add(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kAdd, a, b, BinaryRule::kArithmetic);
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kSub, a, b, BinaryRule::kArithmetic);
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kMul, a, b, BinaryRule::kArithmetic);
}
Tensor div(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kDiv, a, b, BinaryRule::kDivision);
}
Tensor pow(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kPow, a, b, BinaryRule::kArithmetic);
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kMaximum, a, b, BinaryRule::kMinMax);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kMinimum, a, b, BinaryRule::kMinMax);
}
Tensor eq(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kEq, a, b, BinaryRule::kCompare);
}
Tensor ne(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kNe, a, b, BinaryRule::kCompare);
}
Tensor lt(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kLt, a, b, BinaryRule::kCompare);
}
Tensor le(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kLe, a, b, BinaryRule::kCompare);
}
Tensor gt(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kGt, a, b, BinaryRule::kCompare);
}
Tensor ge(const Tensor& a, const Tensor& b) {
  return Binary(OpKind::kGe, a, b, BinaryRule::kCompare);
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

Tensor add(const Tensor& a, double b) {
  return WithScalar(OpKind::kAdd, a, b, BinaryRule::kArithmetic);
}
Tensor sub(const Tensor& a, double b) {
  return WithScalar(OpKind::kSub, a, b, BinaryRule::kArithmetic);
}
Tensor mul(const Tensor& a, double b) {
  return WithScalar(OpKind::kMul, a, b, BinaryRule::kArithmetic);
}
Tensor div(const Tensor& a, double b) {
  return WithScalar(OpKind::kDiv, a, b, BinaryRule::kDivision);
}
Tensor pow(const Tensor& a, double b) {
  return WithScalar(OpKind::kPow, a, b, BinaryRule::kArithmetic);
}
Tensor maximum(const Tensor& a, double b) {
  return WithScalar(OpKind::kMaximum, a, b, BinaryRule::kMinMax);
}
Tensor minimum(const Tensor& a, double b) {
  return WithScalar(OpKind::kMinimum, a, b, BinaryRule::kMinMax);
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
