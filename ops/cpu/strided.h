// Strided iteration and typed loads/stores for the CPU kernels. Views (permute, slice,
// broadcast) are all "read the input at offset + sum(index * stride)", so one walker serves.
#ifndef TESSEL_OPS_CPU_STRIDED_H_
#define TESSEL_OPS_CPU_STRIDED_H_

#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/buffer.h"
#include "core/element.h"
#include "core/shape.h"

namespace tessel::cpu {

// Calls fn(i, offset + sum_d index[d] * strides[d]) for every index of `shape` in row-major
// order, i being the row-major position. The innermost axis is a tight loop.
template <typename F>
void ForEachStrided(const Shape& shape, absl::Span<const int64_t> strides, int64_t offset, F&& fn) {
  const int rank = shape.rank();
  const int64_t n = shape.numel();
  if (n == 0) return;
  if (rank == 0) {
    fn(int64_t{0}, offset);
    return;
  }
  const int64_t inner = shape[rank - 1];
  const int64_t inner_stride = strides[rank - 1];
  absl::InlinedVector<int64_t, 6> index(rank, 0);
  int64_t base = offset;
  for (int64_t o = 0; o < n; o += inner) {
    for (int64_t j = 0; j < inner; ++j) fn(o + j, base + j * inner_stride);
    for (int d = rank - 2; d >= 0; --d) {
      base += strides[d];
      if (++index[d] < shape[d]) break;
      base -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

// A contiguous shape seen as [outer, along, inner] around one axis: the lines along the axis
// start at o * along * inner + i and step by inner.
struct LineExtents {
  int64_t outer = 1, along = 1, inner = 1;
};

inline LineExtents ExtentsAround(const Shape& shape, int axis) {
  LineExtents e;
  for (int d = 0; d < shape.rank(); ++d) {
    (d < axis ? e.outer : d == axis ? e.along : e.inner) *= shape[d];
  }
  return e;
}

// Storage value -> compute type C (float, double or int64_t).
template <typename C, typename S>
C ToCompute(S s) {
  if constexpr (std::is_arithmetic_v<S>) {
    return static_cast<C>(s);
  } else {
    return static_cast<C>(static_cast<float>(s));
  }
}

// The elements of `buffer` (of `in_shape`) as C, broadcast to `out_shape`.
template <typename C>
std::vector<C> LoadBroadcast(const Buffer& buffer, const Shape& in_shape, const Shape& out_shape) {
  std::vector<C> out(out_shape.numel());
  VisitDType(buffer.dtype(), [&](auto zero) {
    using S = decltype(zero);
    const S* src = static_cast<const S*>(buffer.data());
    if (in_shape == out_shape) {
      for (size_t i = 0; i < out.size(); ++i) out[i] = ToCompute<C>(src[i]);
    } else if (in_shape.numel() == 1) {
      std::fill(out.begin(), out.end(), ToCompute<C>(src[0]));
    } else {
      const Shape::Dims strides = BroadcastStrides(in_shape, out_shape);
      ForEachStrided(out_shape, strides, 0,
                     [&](int64_t o, int64_t i) { out[o] = ToCompute<C>(src[i]); });
    }
  });
  return out;
}

// Writes n compute values into a new buffer of `dtype` (bool: nonzero is true; integers from
// int64 wrap around as two's complement does).
template <typename C>
BufferPtr StoreAs(DType dtype, const C* values, int64_t n) {
  auto out = NewHostBuffer(dtype, n);
  VisitDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* dst = out->template as<T>();
    for (int64_t i = 0; i < n; ++i) dst[i] = ToStorage<T>(values[i]);
  });
  return out;
}

}  // namespace tessel::cpu

#endif  // TESSEL_OPS_CPU_STRIDED_H_
