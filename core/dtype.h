// Element types and PyTorch-style type promotion. Tensor -> Graph: every node carries one.
#ifndef TESSEL_CORE_DTYPE_H_
#define TESSEL_CORE_DTYPE_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/strings/string_view.h"

namespace tessel {

enum class DType { kF32, kF16, kBF16, kI32, kBool, kI64, kF64 };
enum class Device { kCPU, kCUDA };

inline constexpr DType kAllDTypes[] = {DType::kF32,  DType::kF16, DType::kBF16, DType::kI32,
                                       DType::kBool, DType::kI64, DType::kF64};

// Short names used in messages and the graph text form: f32, f16, bf16, i32, bool, i64, f64.
absl::string_view DTypeName(DType dtype);
bool ParseDType(absl::string_view name, DType* dtype);
absl::string_view DeviceName(Device device);

int64_t DTypeSize(DType dtype);
bool IsFloating(DType dtype);
bool IsHalfFloat(DType dtype);  // f16 or bf16
bool IsInteger(DType dtype);    // i32 or i64 (not bool)

// The result type of a binary operation on two tensors: bool < i32 < i64 < {f16, bf16} < f32
// < f64, with f16 and bf16 together giving f32 (as in PyTorch).
DType Promote(DType a, DType b);

// Whether `value`, truncated toward zero, is a value of integer dtype `dtype` (i32, i64):
// finite and in its range.
bool FitsInteger(DType dtype, double value);

// The dtype a scalar operand takes next to a tensor of `tensor_dtype`: the tensor's own,
// unless the scalar has a fraction or lies outside the integer type's range and the tensor is
// integral or bool (then f32: i32 + 1e10 is not clamped to 2^31 - 1), or the scalar is
// integral and the tensor is bool (then i32). (PyTorch's default dtypes, f32 and i64, would
// make that i64; i32 is tessel's default integer.)
DType PromoteWithScalar(DType tensor_dtype, double scalar);

std::ostream& operator<<(std::ostream& os, DType dtype);
std::ostream& operator<<(std::ostream& os, Device device);

}  // namespace tessel

#endif  // TESSEL_CORE_DTYPE_H_
