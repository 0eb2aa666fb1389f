#include "ops/cuda_expr.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error.h"

namespace tessel {

const char* CudaComputeType(DType dtype) {
  if (IsFloating(dtype)) return "float";
  return dtype == DType::kI32 ? "int" : "bool";
}

std::string CudaScalarExpr(OpKind op, DType operand, const std::vector<std::string>& args) {
  const bool fp = IsFloating(operand);
  auto a = [&] { return args.at(0); };
  auto b = [&] { return args.at(1); };
  auto call = [&](const char* f) { return absl::StrCat(f, "(", absl::StrJoin(args, ", "), ")"); };
  auto infix = [&](const char* o) { return absl::StrCat("(", a(), " ", o, " ", b(), ")"); };
  switch (op) {
    case OpKind::kNeg:
      return fp ? absl::StrCat("(-", a(), ")") : absl::StrCat("tessel_isub(0, ", a(), ")");
    case OpKind::kAbs:
      return fp ? call("fabsf")
                : absl::StrCat("(", a(), " < 0 ? tessel_isub(0, ", a(), ") : ", a(), ")");
    case OpKind::kExp:
      return call("expf");
    case OpKind::kLog:
      return call("logf");
    case OpKind::kSqrt:
      return call("sqrtf");
    case OpKind::kRsqrt:
      return absl::StrCat("__frsqrt_rn(", a(), ")");  // correctly rounded (rsqrtf is 2 ulp)
    case OpKind::kSin:
      return call("sinf");
    case OpKind::kCos:
      return call("cosf");
    case OpKind::kTanh:
      return call("tanhf");
    case OpKind::kErf:
      return call("erff");
    case OpKind::kSigmoid:
      // The approximate reciprocal (1 ulp) instead of a divide: sigmoid is in hot chains.
      return absl::StrCat("tessel_rcp(1.0f + expf(-", a(), "))");
    case OpKind::kRelu:
      return absl::StrCat("(", a(), " < 0 ? 0 : ", a(), ")");
    case OpKind::kFloor:
      return fp ? call("floorf") : a();
    case OpKind::kCeil:
      return fp ? call("ceilf") : a();
    case OpKind::kRound:
      return fp ? call("rintf") : a();  // half to even
    case OpKind::kTrunc:
      return fp ? call("truncf") : a();
    case OpKind::kSign:
      return call("tessel_sign");
    case OpKind::kLog1p:
      return call("log1pf");
    case OpKind::kExpm1:
      return call("expm1f");
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
      return call("atan2f");
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
      return fp ? call("powf") : call("tessel_ipow");
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

}  // namespace tessel
