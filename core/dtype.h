// Element types and PyTorch-style type promotion. Tensor -> Graph: every node carries one.
#ifndef TESSEL_CORE_DTYPE_H_
#define TESSEL_CORE_DTYPE_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/strings/string_view.h"

namespace tessel {

enum class DType { kF32, kF16, kBF16, kI32, kBool };
enum class Device { kCPU, kCUDA };

// Short names used in messages and the graph text form: f32, f16, bf16, i32, bool.
absl::string_view DTypeName(DType dtype);
bool ParseDType(absl::string_view name, DType* dtype);
absl::string_view DeviceName(Device device);

int64_t DTypeSize(DType dtype);
bool IsFloating(DType dtype);
bool IsHalfFloat(DType dtype);  // f16 or bf16

// The result type of a binary operation on two tensors: bool < i32 < {f16, bf16} < f32,
// with f16 and bf16 together giving f32 (as in PyTorch).
DType Promote(DType a, DType b);

// The dtype a scalar operand takes next to a tensor of `tensor_dtype`: the tensor's own,
// unless the scalar has a fraction and the tensor is integral or bool (then f32), or the
// scalar is integral and the tensor is bool (then i32).
DType PromoteWithScalar(DType tensor_dtype, double scalar);

std::ostream& operator<<(std::ostream& os, DType dtype);
std::ostream& operator<<(std::ostream& os, Device device);

}  // namespace tessel

#endif  // TESSEL_CORE_DTYPE_H_
