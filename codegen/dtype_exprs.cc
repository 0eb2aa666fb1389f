#include "codegen/dtype_exprs.h"

#include "absl/strings/str_cat.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {

const char* StorageType(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "float";
    case DType::kBF16:
      return "bf16_t";
    case DType::kF16:
      return "f16_t";
    case DType::kI32:
      return "int";
    case DType::kBool:
      return "bool_t";
    case DType::kI64:
      return "long long";
    case DType::kF64:
      return "double";
  }
  return "?";
}

std::string LoadConvert(DType dtype, const std::string& expr) {
  switch (dtype) {
    case DType::kBF16:
      return absl::StrCat("tessel_bf16_to_float(", expr, ")");
    case DType::kF16:
      return absl::StrCat("tessel_f16_to_float(", expr, ")");
    case DType::kBool:
      return absl::StrCat("(", expr, " != 0)");
    default:
      return expr;
  }
}

std::string StoreConvert(DType dtype, const std::string& expr) {
  switch (dtype) {
    case DType::kBF16:
      return absl::StrCat("tessel_float_to_bf16(", expr, ")");
    case DType::kF16:
      return absl::StrCat("tessel_float_to_f16(", expr, ")");
    case DType::kBool:
      return absl::StrCat("(bool_t)(", expr, ")");
    default:
      return expr;
  }
}

std::string RoundTo(DType dtype, const std::string& expr) {
  if (dtype == DType::kBF16) return absl::StrCat("tessel_round_bf16(", expr, ")");
  if (dtype == DType::kF16) return absl::StrCat("tessel_round_f16(", expr, ")");
  return expr;
}

std::string ConvertExpr(const std::string& e, DType from, DType to) {
  const DType f = CudaComputeDType(from), t = CudaComputeDType(to);
  if (f == t) return RoundTo(to, e);
  if (to == DType::kBool) return absl::StrCat("(", e, f == DType::kF32 ? " != 0.0f)" : " != 0)");
  if (!IsFloating(to) && IsFloating(from)) {  // saturating, NaN to 0
    if (f == DType::kF32 && t == DType::kI32) return absl::StrCat("tessel_float_to_int(", e, ")");
    return absl::StrCat("tessel_saturate<", CudaComputeType(to), ">(", e, ")");
  }
  if (from == DType::kF64 && to != t) {  // to f16 or bf16: rounded once, as the CPU does
    return RoundTo(to, absl::StrCat("tessel_double_to_float_odd(", e, ")"));
  }
  return RoundTo(to, absl::StrCat("(", CudaComputeType(to), ")", e));
}

}  // namespace tessel::codegen
