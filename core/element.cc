#include "core/element.h"

#include <type_traits>

namespace tessel {

double LoadAsDouble(DType dtype, const void* data, int64_t i) {
  return VisitDType(dtype, [&](auto zero) -> double {
    using T = decltype(zero);
    return ToDouble(static_cast<const T*>(data)[i]);
  });
}

void StoreFromDouble(DType dtype, void* data, int64_t i, double v) {
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, uint8_t>) {
      static_cast<T*>(data)[i] = v != 0;
    } else if constexpr (std::is_arithmetic_v<T>) {
      static_cast<T*>(data)[i] = ConvertElement<T>(v);
    } else {
      static_cast<T*>(data)[i] = T(static_cast<float>(v));
    }
  });
}

}  // namespace tessel
