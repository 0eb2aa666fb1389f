#include "ops/cuda_expr.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error.h"

namespace tessel {

const char* CudaComputeType(DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return "double";
    case DType::kI64:
      return "long long";
    case DType::kI32:
      return "int";
    case DType::kBool:
      return "bool";
    default:
      return "float";  // f32, and f16/bf16 computed in float
  }
}

DType CudaComputeDType(DType dtype) { return IsHalfFloat(dtype) ? DType::kF32 : dtype; }

std::string CudaScalarExpr(OpKind op, DType operand, const std::vector<std::string>& args) {
  const bool fp = IsFloating(operand);
  const bool f64 = operand == DType::kF64;
  auto a = [&] { return args.at(0); };
  auto b = [&] { return args.at(1); };
  auto call = [&](const char* f) { return absl::StrCat(f, "(", absl::StrJoin(args, ", "), ")"); };
  // The C math function of the operand's precision: expf for float, exp for double.
  auto math = [&](const char* float_name) {
    absl::string_view name(float_name);
    return call(std::string(f64 ? name.substr(0, name.size() - 1) : name).c_str());
  };
  const std::string zero = absl::StrCat("(", CudaComputeType(operand), ")0");
  auto infix = [&](const char* o) { return absl::StrCat("(", a(), " ", o, " ", b(), ")"); };
  switch (op) {
    case OpKind::kNeg:
      return fp ? absl::StrCat("(-", a(), ")") : absl::StrCat("tessel_isub(", zero, ", ", a(), ")");
    case OpKind::kAbs:
      return fp ? math("fabsf")
                : absl::StrCat("(", a(), " < 0 ? tessel_isub(", zero, ", ", a(), ") : ", a(), ")");
    case OpKind::kExp:
      return math("expf");
    case OpKind::kLog:
      return math("logf");
    case OpKind::kSqrt:
      return math("sqrtf");
    case OpKind::kRsqrt:
      // 1.0 / sqrt(x), as the CPU computes it: __drcp_rn is that division, correctly rounded,
      // without the divide's slow path (which spills registers).
      if (f64) return absl::StrCat("__drcp_rn(sqrt(", a(), "))");
      return absl::StrCat("__frsqrt_rn(", a(), ")");  // correctly rounded (rsqrtf is 2 ulp)
    case OpKind::kSin:
      return math("sinf");
    case OpKind::kCos:
      return math("cosf");
    case OpKind::kTanh:
      return math("tanhf");
    case OpKind::kErf:
      return math("erff");
    case OpKind::kSigmoid:
      // The approximate reciprocal (1 ulp) instead of a divide: sigmoid is in hot chains.
      if (f64) return absl::StrCat("__drcp_rn(1.0 + exp(-", a(), "))");  // = 1.0 / (...)
      return absl::StrCat("tessel_rcp(1.0f + expf(-", a(), "))");
    case OpKind::kRelu:
      return absl::StrCat("(", a(), " < 0 ? 0 : ", a(), ")");
    case OpKind::kFloor:
      return fp ? math("floorf") : a();
    case OpKind::kCeil:
      return fp ? math("ceilf") : a();
    case OpKind::kRound:
      return fp ? math("rintf") : a();  // half to even
    case OpKind::kTrunc:
      return fp ? math("truncf") : a();
    case OpKind::kSign:
      return call("tessel_sign");
    case OpKind::kLog1p:
      return math("log1pf");
    case OpKind::kExpm1:
      return math("expm1f");
    case OpKind::kIsNan:
      return fp ? absl::StrCat("(", a(), " != ", a(), ")") : "false";
    case OpKind::kIsInf:
      return fp ? call("isinf") : "false";
    case OpKind::kIsFinite:
      return fp ? call("isfinite") : "true";
    case OpKind::kLogicalNot:
      return absl::StrCat("(", a(), " == 0)");
    case OpKind::kRemainder:
      return call("tessel_remainder");
    case OpKind::kFmod:
      return call("tessel_fmod");
    case OpKind::kAtan2:
      return math("atan2f");
    case OpKind::kLogicalAnd:
      return absl::StrCat("((", a(), " != 0) && (", b(), " != 0))");
    case OpKind::kLogicalOr:
      return absl::StrCat("((", a(), " != 0) || (", b(), " != 0))");
    case OpKind::kLogicalXor:
      return absl::StrCat("((", a(), " != 0) != (", b(), " != 0))");
    case OpKind::kAdd:
      return fp ? infix("+") : call("tessel_iadd");
    case OpKind::kSub:
      return fp ? infix("-") : call("tessel_isub");
    case OpKind::kMul:
      return fp ? infix("*") : call("tessel_imul");
    case OpKind::kDiv:
      return infix("/");
    case OpKind::kPow:
      return fp ? math("powf") : call("tessel_ipow");
    case OpKind::kMaximum:
      return call("tessel_max");
    case OpKind::kMinimum:
      return call("tessel_min");
    case OpKind::kEq:
      return infix("==");
    case OpKind::kNe:
      return infix("!=");
    case OpKind::kLt:
      return infix("<");
    case OpKind::kLe:
      return infix("<=");
    case OpKind::kGt:
      return infix(">");
    case OpKind::kGe:
      return infix(">=");
    case OpKind::kWhere:
      return absl::StrCat("(", args.at(0), " ? ", args.at(1), " : ", args.at(2), ")");
    default:
      break;
  }
  TESSEL_CHECK(false, "no CUDA expression for ", OpName(op));
  return "";
}

bool CudaExprCallsWithStack(OpKind op, DType operand) {
  return operand == DType::kF64 && (op == OpKind::kSin || op == OpKind::kCos);
}

bool SelectsAnOperand(OpKind op) {
  switch (op) {
    case OpKind::kNeg:
    case OpKind::kAbs:
    case OpKind::kRelu:
    case OpKind::kMaximum:
    case OpKind::kMinimum:
    case OpKind::kWhere:
      return true;
    default:
      return false;
  }
}

}  // namespace tessel
