// Element access on host memory for every DType: f16 and bf16 through Eigen's scalar
// types, computed in float. Used by the CPU backend and by Tensor::to_vector.
#ifndef TESSEL_CORE_ELEMENT_H_
#define TESSEL_CORE_ELEMENT_H_

#include <Eigen/Core>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype.h"

namespace tessel {

// Calls f(T{}) with T the storage type of `dtype` (float, Eigen::half, Eigen::bfloat16,
// int32_t, uint8_t for bool): one switch for all dispatch.
template <typename F>
decltype(auto) VisitDType(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kF32:
      return f(float{});
    case DType::kF16:
      return f(Eigen::half{});
    case DType::kBF16:
      return f(Eigen::bfloat16{});
    case DType::kI32:
      return f(int32_t{});
    case DType::kBool:
      break;
  }
  return f(uint8_t{});
}

// Exact conversion of any storage type to double.
template <typename S>
double ToDouble(S s) {
  if constexpr (std::is_arithmetic_v<S>) {
    return static_cast<double>(s);
  } else {
    return static_cast<double>(static_cast<float>(s));
  }
}

// Element conversion without undefined behaviour: NaN reads as 0 and out-of-range values
// saturate when the target is an integer.
template <typename T, typename S>
T ConvertElement(S s) {
  const double v = ToDouble(s);
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (!(v == v)) return 0;
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
      return std::numeric_limits<T>::lowest();
    }
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
      return std::numeric_limits<T>::max();
    }
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

// Reads element i of host memory of `dtype` as double (exact for every dtype).
double LoadAsDouble(DType dtype, const void* data, int64_t i);
// Writes v, rounded to `dtype` (bool: nonzero is true; i32: truncates toward zero).
void StoreFromDouble(DType dtype, void* data, int64_t i, double v);

}  // namespace tessel

#endif  // TESSEL_CORE_ELEMENT_H_
