// Element access on host memory for every DType: f16 and bf16 through Eigen's scalar
// types, computed in float. Used by the CPU backend and by Tensor::to_vector.
#ifndef TESSEL_CORE_ELEMENT_H_
#define TESSEL_CORE_ELEMENT_H_

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/base/casts.h"
#include "core/dtype.h"

namespace tessel {

// Calls f(T{}) with T the storage type of `dtype` (float, Eigen::half, Eigen::bfloat16,
// int32_t, uint8_t for bool, int64_t, double): one switch for all dispatch.
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
    case DType::kI64:
      return f(int64_t{});
    case DType::kF64:
      return f(double{});
    case DType::kBool:
      break;
  }
  return f(uint8_t{});
}

// Conversion of any storage type to double (exact but for i64 past 2^53).
template <typename S>
double ToDouble(S s) {
  if constexpr (std::is_arithmetic_v<S>) {
    return static_cast<double>(s);
  } else {
    return static_cast<double>(static_cast<float>(s));
  }
}

// Element conversion without undefined behaviour, as the GPU converts: integers to narrower
// integers wrap (two's complement), NaN reads as 0 and out-of-range floats saturate when the
// target is an integer, and any value is exact where the target holds it.
template <typename T, typename S>
T ConvertElement(S s) {
  if constexpr (std::is_same_v<T, bool>) {
    return ToDouble(s) != 0;
  } else if constexpr (std::is_integral_v<T> && std::is_integral_v<S>) {
    return static_cast<T>(s);
  } else if constexpr (std::is_integral_v<T>) {
    const double v = ToDouble(s);
    if (!(v == v)) return 0;
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
      return std::numeric_limits<T>::lowest();
    }
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
      return std::numeric_limits<T>::max();
    }
    return static_cast<T>(v);
  } else if constexpr (std::is_arithmetic_v<S>) {
    return static_cast<T>(s);
  } else {
    return static_cast<T>(static_cast<float>(s));
  }
}

// d in float rounded to odd: toward zero, the last bit set where that was inexact. Rounding
// this float again to a format of at most 22 significand bits (f16, bf16) gives what rounding
// d itself would: the one rounding of d, not two (as the GPU does: tessel_double_to_float_odd).
inline float DoubleToFloatOdd(double d) {
  float r = static_cast<float>(d);
  if (static_cast<double>(r) == d || d != d) return r;
  if (std::fabs(static_cast<double>(r)) > std::fabs(d)) r = std::nextafter(r, 0.0f);
  return absl::bit_cast<float>(absl::bit_cast<uint32_t>(r) | 1u);
}

// ConvertElement into storage type T, whatever it is: uint8_t is bool (nonzero is true), the
// 16-bit floats round from float (from double once: DoubleToFloatOdd; from integers through
// float, as PyTorch converts).
template <typename T, typename S>
T ToStorage(S s) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return ConvertElement<bool>(s);
  } else if constexpr (std::is_arithmetic_v<T>) {
    return ConvertElement<T>(s);
  } else if constexpr (std::is_same_v<S, double>) {
    return T(DoubleToFloatOdd(s));
  } else {
    return T(ConvertElement<float>(s));
  }
}

// Converts n elements of `from` at src into `to` at dst.
void ConvertElements(DType from, const void* src, DType to, void* dst, int64_t n);

// Reads element i of host memory of `dtype` as double (exact but for i64 past 2^53).
double LoadAsDouble(DType dtype, const void* data, int64_t i);
// Writes v, rounded to `dtype` (bool: nonzero is true; integers: truncate toward zero).
void StoreFromDouble(DType dtype, void* data, int64_t i, double v);

}  // namespace tessel

#endif  // TESSEL_CORE_ELEMENT_H_
