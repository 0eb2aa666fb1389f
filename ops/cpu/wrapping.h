// The CPU kernels' arithmetic in their compute types (double, float, int64): integers wrap as
// two's complement, as the GPU's integer arithmetic does (i64 in 64 bits; for i32 the low 32
// bits agree), computed unsigned so that overflow is not undefined behaviour.
#ifndef TESSEL_OPS_CPU_WRAPPING_H_
#define TESSEL_OPS_CPU_WRAPPING_H_

#include <cstdint>
#include <type_traits>

namespace tessel::cpu {

template <typename C>
C WrapAdd(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    return static_cast<C>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}

template <typename C>
C WrapSub(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    return static_cast<C>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  } else {
    return a - b;
  }
}

template <typename C>
C WrapMul(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    return static_cast<C>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}

}  // namespace tessel::cpu

#endif  // TESSEL_OPS_CPU_WRAPPING_H_
