// Elementwise kernels: inputs are broadcast into compute arrays (double for f64, float for the
// other floats, int64 for integers), combined with Eigen array expressions, and rounded to the
// result dtype once. Integer arithmetic wraps as two's complement (computed unsigned, without
// undefined behaviour): i64 wraps in int64, i32 in the low 32 bits that the store keeps.
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/strided.h"
#include "ops/cpu/wrapping.h"
#include "ops/pointwise.h"

namespace tessel::cpu {
namespace {

template <typename C>
using Array = Eigen::Array<C, Eigen::Dynamic, 1>;
template <typename C>
using ConstMap = Eigen::Map<const Array<C>>;
template <typename C>
using OutMap = Eigen::Map<Array<C>>;

template <typename C>
C NanOr(C a, C b, C value) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return value;
}

// Integer power by squaring, wrapping; negative exponents truncate toward zero as integer
// division would (only 1 and -1 keep a nonzero result).
int64_t IntPow(int64_t base, int64_t exponent) {
  if (exponent < 0) return base == 1 ? 1 : base == -1 ? (exponent % 2 ? -1 : 1) : 0;
  int64_t result = 1;
  for (; exponent > 0; exponent >>= 1, base = WrapMul<int64_t>(base, base)) {
    if (exponent & 1) result = WrapMul<int64_t>(result, base);
  }
  return result;
}

// C's fmod: the sign of x. An integer y of 0 gives 0 (the GPU's prelude does the same).
template <typename C>
C Fmod(C x, C y) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::fmod(x, y);
  } else {
    return y == 0 || y == -1 ? 0 : x % y;  // INT64_MIN % -1 is undefined
  }
}

// Python's %: the sign of y.
template <typename C>
C Remainder(C x, C y) {
  const C r = Fmod(x, y);
  return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

template <typename C>
absl::Status Unary(OpKind op, const ConstMap<C>& a, OutMap<C> out) {
  switch (op) {
    case OpKind::kNeg:  // not Eigen's -a: its AVX negation is 0 - x, which makes -0 +0
      if constexpr (std::is_integral_v<C>) {
        out = a.unaryExpr([](C v) { return WrapSub<C>(0, v); });
      } else {
        out = a.unaryExpr([](C v) { return -v; });
      }
      return absl::OkStatus();
    case OpKind::kAbs:
      if constexpr (std::is_integral_v<C>) {
        out = a.unaryExpr([](C v) { return v < 0 ? WrapSub<C>(0, v) : v; });
      } else {
        out = a.abs();
      }
      return absl::OkStatus();
    case OpKind::kRelu:
      out = a.unaryExpr([](C v) { return v < 0 ? C(0) : v; });
      return absl::OkStatus();
    case OpKind::kSign:
      out = a.unaryExpr([](C v) { return v != v ? v : C((C(0) < v) - (v < C(0))); });
      return absl::OkStatus();
    case OpKind::kLogicalNot:
      out = (a == C(0)).template cast<C>();
      return absl::OkStatus();
    default:
      break;
  }
  if constexpr (!std::is_floating_point_v<C>) {
    switch (op) {
      case OpKind::kFloor:
      case OpKind::kCeil:
      case OpKind::kRound:
      case OpKind::kTrunc:
        out = a;  // integers are whole already
        return absl::OkStatus();
      case OpKind::kIsNan:
      case OpKind::kIsInf:
        out.setZero();
        return absl::OkStatus();
      case OpKind::kIsFinite:
        out.setOnes();
        return absl::OkStatus();
      default:
        break;
    }
  }
  if constexpr (std::is_floating_point_v<C>) {
    switch (op) {
      // Eigen's vectorized exp, log, sqrt and rsqrt are fast approximations that fail at the
      // edges (exp below -87 is not 0 or subnormal, log and rsqrt of a subnormal and sqrt
      // of infinity are NaN); the reference uses the C library's, correctly rounded from
      // double. Its sin, cos and tanh stay within 4 ulps with the right special values.
      case OpKind::kExp:
        out = a.unaryExpr([](C v) { return static_cast<C>(std::exp(static_cast<double>(v))); });
        return absl::OkStatus();
      case OpKind::kLog:
        out = a.unaryExpr([](C v) { return static_cast<C>(std::log(static_cast<double>(v))); });
        return absl::OkStatus();
      case OpKind::kSqrt:
        out = a.unaryExpr([](C v) { return std::sqrt(v); });
        return absl::OkStatus();
      case OpKind::kRsqrt:
        out = a.unaryExpr(
            [](C v) { return static_cast<C>(1.0 / std::sqrt(static_cast<double>(v))); });
        return absl::OkStatus();
      case OpKind::kSin:
        out = a.sin();
        return absl::OkStatus();
      case OpKind::kCos:
        out = a.cos();
        return absl::OkStatus();
      case OpKind::kTanh:
        out = a.tanh();
        return absl::OkStatus();
      case OpKind::kErf:
        out = a.unaryExpr([](C v) { return std::erf(v); });
        return absl::OkStatus();
      case OpKind::kSigmoid:
        out = a.unaryExpr([](C v) { return C(1) / (C(1) + std::exp(-v)); });
        return absl::OkStatus();
      case OpKind::kFloor:
        out = a.unaryExpr([](C v) { return std::floor(v); });
        return absl::OkStatus();
      case OpKind::kCeil:
        out = a.unaryExpr([](C v) { return std::ceil(v); });
        return absl::OkStatus();
      case OpKind::kRound:  // half to even: the default rounding mode
        out = a.unaryExpr([](C v) { return std::nearbyint(v); });
        return absl::OkStatus();
      case OpKind::kTrunc:
        out = a.unaryExpr([](C v) { return std::trunc(v); });
        return absl::OkStatus();
      case OpKind::kLog1p:
        out = a.unaryExpr([](C v) { return static_cast<C>(std::log1p(static_cast<double>(v))); });
        return absl::OkStatus();
      case OpKind::kExpm1:
        out = a.unaryExpr([](C v) { return static_cast<C>(std::expm1(static_cast<double>(v))); });
        return absl::OkStatus();
      case OpKind::kIsNan:
        out = a.unaryExpr([](C v) { return C(std::isnan(v)); });
        return absl::OkStatus();
      case OpKind::kIsInf:
        out = a.unaryExpr([](C v) { return C(std::isinf(v)); });
        return absl::OkStatus();
      case OpKind::kIsFinite:
        out = a.unaryExpr([](C v) { return C(std::isfinite(v)); });
        return absl::OkStatus();
      default:
        break;
    }
  }
  return absl::InternalError(absl::StrCat("no CPU kernel for unary ", OpName(op)));
}

template <typename C>
absl::Status Binary(OpKind op, const ConstMap<C>& a, const ConstMap<C>& b, OutMap<C> out) {
  switch (op) {
    case OpKind::kAdd:
      if constexpr (std::is_integral_v<C>) {
        out = a.binaryExpr(b, [](C x, C y) { return WrapAdd(x, y); });
      } else {
        out = a + b;
      }
      return absl::OkStatus();
    case OpKind::kSub:
      if constexpr (std::is_integral_v<C>) {
        out = a.binaryExpr(b, [](C x, C y) { return WrapSub(x, y); });
      } else {
        out = a - b;
      }
      return absl::OkStatus();
    case OpKind::kMul:
      if constexpr (std::is_integral_v<C>) {
        out = a.binaryExpr(b, [](C x, C y) { return WrapMul(x, y); });
      } else {
        out = a * b;
      }
      return absl::OkStatus();
    case OpKind::kDiv:
      out = a / b;
      return absl::OkStatus();
    case OpKind::kPow:
      if constexpr (std::is_floating_point_v<C>) {
        out = a.binaryExpr(b, [](C x, C y) { return std::pow(x, y); });
        return absl::OkStatus();
      } else {
        out = a.binaryExpr(b, [](C x, C y) { return IntPow(x, y); });
        return absl::OkStatus();
      }
    case OpKind::kMaximum:
      out = a.binaryExpr(b, [](C x, C y) { return NanOr(x, y, x > y ? x : y); });
      return absl::OkStatus();
    case OpKind::kMinimum:
      out = a.binaryExpr(b, [](C x, C y) { return NanOr(x, y, x < y ? x : y); });
      return absl::OkStatus();
    case OpKind::kRemainder:
      out = a.binaryExpr(b, [](C x, C y) { return Remainder(x, y); });
      return absl::OkStatus();
    case OpKind::kFmod:
      out = a.binaryExpr(b, [](C x, C y) { return Fmod(x, y); });
      return absl::OkStatus();
    case OpKind::kAtan2:
      if constexpr (std::is_floating_point_v<C>) {
        out = a.binaryExpr(b, [](C y, C x) { return std::atan2(y, x); });
        return absl::OkStatus();
      }
      break;
    case OpKind::kLogicalAnd:
      out = ((a != C(0)) && (b != C(0))).template cast<C>();
      return absl::OkStatus();
    case OpKind::kLogicalOr:
      out = ((a != C(0)) || (b != C(0))).template cast<C>();
      return absl::OkStatus();
    case OpKind::kLogicalXor:
      out = ((a != C(0)) != (b != C(0))).template cast<C>();
      return absl::OkStatus();
    case OpKind::kEq:
      out = (a == b).template cast<C>();
      return absl::OkStatus();
    case OpKind::kNe:
      out = (a != b).template cast<C>();
      return absl::OkStatus();
    case OpKind::kLt:
      out = (a < b).template cast<C>();
      return absl::OkStatus();
    case OpKind::kLe:
      out = (a <= b).template cast<C>();
      return absl::OkStatus();
    case OpKind::kGt:
      out = (a > b).template cast<C>();
      return absl::OkStatus();
    case OpKind::kGe:
      out = (a >= b).template cast<C>();
      return absl::OkStatus();
    default:
      break;
  }
  return absl::InternalError(absl::StrCat("no CPU kernel for binary ", OpName(op)));
}

// Operand i as n compute values: the buffer itself when it already holds them in order,
// else a converted, broadcast copy kept in `scratch`. `operand` is the dtype the operation
// reads its operands in (ElementwiseOperandDType).
template <typename C>
const C* OperandValues(const Node& node, DType operand, const InputBuffers& inputs, size_t i,
                       std::vector<std::vector<C>>* scratch) {
  const Buffer& in = *inputs[i];
  const bool same_layout = node.input(i).shape() == node.shape();
  if constexpr (std::is_same_v<C, float>) {
    if (same_layout && in.dtype() == DType::kF32) return static_cast<const float*>(in.data());
  }
  scratch->push_back(LoadBroadcast<C>(in, node.input(i).shape(), node.shape()));
  std::vector<C>& values = scratch->back();
  // An integer operand of a 16-bit float operation is converted to that dtype first, as the
  // GPU and PyTorch do: 1275 is 1272 in bf16, an even exponent for pow.
  const bool condition = node.op() == OpKind::kWhere && i == 0;
  if (IsHalfFloat(operand) && !IsFloating(in.dtype()) && !condition) {
    VisitDType(operand, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_same_v<C, float> && !std::is_arithmetic_v<T>) {
        for (C& v : values) v = static_cast<float>(T(v));
      }
    });
  }
  return values.data();
}

template <typename C>
absl::StatusOr<BufferPtr> Compute(const Node& node, DType operand, const InputBuffers& inputs) {
  const int64_t n = node.shape().numel();
  std::vector<std::vector<C>> scratch;
  scratch.reserve(inputs.size());
  std::vector<ConstMap<C>> operands;
  for (size_t i = 0; i < inputs.size(); ++i) {
    operands.emplace_back(OperandValues<C>(node, operand, inputs, i, &scratch), n);
  }
  // Results in the compute type are written straight into the output buffer.
  const bool direct = std::is_same_v<C, float> && node.dtype() == DType::kF32;
  std::shared_ptr<HostBuffer> out = direct ? NewHostBuffer(DType::kF32, n) : nullptr;
  Array<C> temp(direct ? 0 : n);
  OutMap<C> result(direct ? static_cast<C*>(out->data()) : temp.data(), n);
  absl::Status status;
  if (node.op() == OpKind::kWhere) {
    result = (operands[0] != C(0)).select(operands[1], operands[2]);
  } else if (inputs.size() == 1) {
    status = Unary<C>(node.op(), operands[0], result);
  } else {
    status = Binary<C>(node.op(), operands[0], operands[1], result);
  }
  if (!status.ok()) return status;
  if (direct) return BufferPtr(out);
  return StoreAs<C>(node.dtype(), temp.data(), n);
}

// Conversion between any two dtypes, element by element.
BufferPtr Cast(const Node& node, const Buffer& in) {
  auto out = NewHostBuffer(node.dtype(), node.shape().numel());
  ConvertElements(in.dtype(), in.data(), node.dtype(), out->data(), in.numel());
  return out;
}

}  // namespace

absl::StatusOr<BufferPtr> RunElementwise(const Node& node, const InputBuffers& inputs) {
  if (node.op() == OpKind::kCast) return Cast(node, *inputs[0]);
  const DType a = node.input(0).dtype();
  const DType b = node.inputs().size() > 1 ? node.input(1).dtype() : a;
  const DType operand = ElementwiseOperandDType(node.op(), node.dtype(), a, b);
  if (operand == DType::kF64) return Compute<double>(node, operand, inputs);
  if (IsFloating(operand)) return Compute<float>(node, operand, inputs);
  return Compute<int64_t>(node, operand, inputs);
}

}  // namespace tessel::cpu
