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
    static_cast<T*>(data)[i] = ToStorage<T>(v);
  });
}

void ConvertElements(DType from, const void* src, DType to, void* dst, int64_t n) {
  VisitDType(from, [&](auto from_zero) {
    using S = decltype(from_zero);
    VisitDType(to, [&](auto to_zero) {
      using T = decltype(to_zero);
      const S* in = static_cast<const S*>(src);
      T* out = static_cast<T*>(dst);
      for (int64_t i = 0; i < n; ++i) out[i] = ToStorage<T>(in[i]);
    });
  });
}

}  // namespace tessel
