// Elementwise kernels: inputs are broadcast into compute arrays (float for floating
// results, int64 for integers, so that i32 arithmetic wraps without undefined behaviour),
// combined with Eigen array expressions, and rounded to the result dtype once.
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/strided.h"

namespace tessel::cpu {
namespace {

template <typename C>
using Array = Eigen::Array<C, Eigen::Dynamic, 1>;
template <typename C>
using ConstMap = Eigen::Map<const Array<C>>;

template <typename C>
C NanOr(C a, C b, C value) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return value;
}

// Integer power by squaring, wrapping like i32 arithmetic; negative exponents truncate
// toward zero as integer division would (only 1 and -1 keep a nonzero result).
int64_t IntPow(int64_t base, int64_t exponent) {
  if (exponent < 0) return base == 1 ? 1 : base == -1 ? (exponent % 2 ? -1 : 1) : 0;
  uint32_t result = 1, b = static_cast<uint32_t>(base);
  for (; exponent > 0; exponent >>= 1, b *= b) {
    if (exponent & 1) result *= b;
  }
  return static_cast<int32_t>(result);
}

template <typename C>
absl::StatusOr<Array<C>> Unary(OpKind op, const ConstMap<C>& a) {
  switch (op) {
    case OpKind::kNeg:
      return Array<C>(-a);
    case OpKind::kAbs:
      return Array<C>(a.abs());
    case OpKind::kRelu:
      return Array<C>(a.unaryExpr([](C v) { return v < 0 ? C(0) : v; }));
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<C>) {
    switch (op) {
      case OpKind::kExp:
        return Array<C>(a.exp());
      case OpKind::kLog:
        return Array<C>(a.log());
      case OpKind::kSqrt:
        return Array<C>(a.sqrt());
      case OpKind::kRsqrt:
        return Array<C>(a.rsqrt());
      case OpKind::kSin:
        return Array<C>(a.sin());
      case OpKind::kCos:
        return Array<C>(a.cos());
      case OpKind::kTanh:
        return Array<C>(a.tanh());
      case OpKind::kErf:
        return Array<C>(a.unaryExpr([](C v) { return std::erf(v); }));
      case OpKind::kSigmoid:
        return Array<C>(a.unaryExpr([](C v) { return C(1) / (C(1) + std::exp(-v)); }));
      default:
        break;
    }
  }
  return absl::InternalError(absl::StrCat("no CPU kernel for unary ", OpName(op)));
}

template <typename C>
absl::StatusOr<Array<C>> Binary(OpKind op, const ConstMap<C>& a, const ConstMap<C>& b) {
  switch (op) {
    case OpKind::kAdd:
      return Array<C>(a + b);
    case OpKind::kSub:
      return Array<C>(a - b);
    case OpKind::kMul:
      return Array<C>(a * b);
    case OpKind::kDiv:
      return Array<C>(a / b);
    case OpKind::kPow:
      if constexpr (std::is_floating_point_v<C>) {
        return Array<C>(a.binaryExpr(b, [](C x, C y) { return std::pow(x, y); }));
      } else {
        return Array<C>(a.binaryExpr(b, [](C x, C y) { return IntPow(x, y); }));
      }
    case OpKind::kMaximum:
      return Array<C>(a.binaryExpr(b, [](C x, C y) { return NanOr(x, y, x > y ? x : y); }));
    case OpKind::kMinimum:
      return Array<C>(a.binaryExpr(b, [](C x, C y) { return NanOr(x, y, x < y ? x : y); }));
    case OpKind::kEq:
      return Array<C>((a == b).template cast<C>());
    case OpKind::kNe:
      return Array<C>((a != b).template cast<C>());
    case OpKind::kLt:
      return Array<C>((a < b).template cast<C>());
    case OpKind::kLe:
      return Array<C>((a <= b).template cast<C>());
    case OpKind::kGt:
      return Array<C>((a > b).template cast<C>());
    case OpKind::kGe:
      return Array<C>((a >= b).template cast<C>());
    default:
      return absl::InternalError(absl::StrCat("no CPU kernel for binary ", OpName(op)));
  }
}

// The dtype the operation computes in: the promoted operand type for comparisons and
// where, the result type otherwise.
DType ComputeDType(const Node& node) {
  switch (node.op()) {
    case OpKind::kEq:
    case OpKind::kNe:
    case OpKind::kLt:
    case OpKind::kLe:
    case OpKind::kGt:
    case OpKind::kGe:
      return Promote(node.input(0).dtype(), node.input(1).dtype());
    default:
      return node.dtype();
  }
}

template <typename C>
absl::StatusOr<BufferPtr> Compute(const Node& node, const InputBuffers& inputs) {
  const Shape& shape = node.shape();
  std::vector<std::vector<C>> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    values.push_back(LoadBroadcast<C>(*inputs[i], node.input(i).shape(), shape));
  }
  const int64_t n = shape.numel();
  auto map = [n](const std::vector<C>& v) { return ConstMap<C>(v.data(), n); };
  absl::StatusOr<Array<C>> result;
  if (node.op() == OpKind::kWhere) {
    result = Array<C>((map(values[0]) != C(0)).select(map(values[1]), map(values[2])));
  } else if (inputs.size() == 1) {
    result = Unary<C>(node.op(), map(values[0]));
  } else {
    result = Binary<C>(node.op(), map(values[0]), map(values[1]));
  }
  if (!result.ok()) return result.status();
  return StoreAs<C>(node.dtype(), result->data(), n);
}

// Conversion between any two dtypes, element by element.
BufferPtr Cast(const Node& node, const Buffer& in) {
  auto out = NewHostBuffer(node.dtype(), node.shape().numel());
  for (int64_t i = 0; i < in.numel(); ++i) {
    StoreFromDouble(node.dtype(), out->data(), i, LoadAsDouble(in.dtype(), in.data(), i));
  }
  return out;
}

}  // namespace

absl::StatusOr<BufferPtr> RunElementwise(const Node& node, const InputBuffers& inputs) {
  if (node.op() == OpKind::kCast) return Cast(node, *inputs[0]);
  if (IsFloating(ComputeDType(node))) return Compute<float>(node, inputs);
  return Compute<int64_t>(node, inputs);
}

}  // namespace tessel::cpu
