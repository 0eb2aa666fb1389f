#include "core/dtype.h"

#include <cmath>

namespace tessel {

absl::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "f32";
    case DType::kF16:
      return "f16";
    case DType::kBF16:
      return "bf16";
    case DType::kI32:
      return "i32";
    case DType::kBool:
      return "bool";
    case DType::kI64:
      return "i64";
    case DType::kF64:
      return "f64";
  }
  return "?";
}

bool ParseDType(absl::string_view name, DType* dtype) {
  for (DType d : kAllDTypes) {
    if (DTypeName(d) == name) {
      *dtype = d;
      return true;
    }
  }
  return false;
}

absl::string_view DeviceName(Device device) { return device == Device::kCPU ? "cpu" : "cuda"; }

int64_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kF64:
    case DType::kI64:
      return 8;
    case DType::kF32:
    case DType::kI32:
      return 4;
    case DType::kF16:
    case DType::kBF16:
      return 2;
    case DType::kBool:
      return 1;
  }
  return 0;
}

bool IsFloating(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF16 || dtype == DType::kBF16 ||
         dtype == DType::kF64;
}

bool IsHalfFloat(DType dtype) { return dtype == DType::kF16 || dtype == DType::kBF16; }

bool IsInteger(DType dtype) { return dtype == DType::kI32 || dtype == DType::kI64; }

namespace {
int Rank(DType d) {
  switch (d) {
    case DType::kBool:
      return 0;
    case DType::kI32:
      return 1;
    case DType::kI64:
      return 2;
    case DType::kF16:
    case DType::kBF16:
      return 3;
    case DType::kF32:
      return 4;
    case DType::kF64:
      return 5;
  }
  return 0;
}
}  // namespace

DType Promote(DType a, DType b) {
  if (a == b) return a;
  if ((a == DType::kF16 && b == DType::kBF16) || (a == DType::kBF16 && b == DType::kF16)) {
    return DType::kF32;
  }
  return Rank(a) >= Rank(b) ? a : b;
}

bool FitsInteger(DType dtype, double value) {
  if (dtype == DType::kI64) return value >= -0x1p63 && value < 0x1p63;  // NaN fails both
  return value > -0x1p31 - 1 && value < 0x1p31;
}

DType PromoteWithScalar(DType tensor_dtype, double scalar) {
  if (IsFloating(tensor_dtype)) return tensor_dtype;
  const DType integer = tensor_dtype == DType::kBool ? DType::kI32 : tensor_dtype;
  const bool integral = std::isfinite(scalar) && std::floor(scalar) == scalar;
  return integral && FitsInteger(integer, scalar) ? integer : DType::kF32;
}

std::ostream& operator<<(std::ostream& os, DType dtype) { return os << DTypeName(dtype); }
std::ostream& operator<<(std::ostream& os, Device device) { return os << DeviceName(device); }

}  // namespace tessel
