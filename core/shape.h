// Shapes and NumPy broadcasting. Tensor -> Graph: every node has one; ops/ checks them
// with these helpers when an operation is recorded.
#ifndef TESSEL_CORE_SHAPE_H_
#define TESSEL_CORE_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace tessel {

class Shape {
 public:
  using Dims = absl::InlinedVector<int64_t, 6>;

  Shape() = default;  // rank 0: a scalar
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(absl::Span<const int64_t> dims) : dims_(dims.begin(), dims.end()) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t operator[](int axis) const { return dims_[axis]; }
  int64_t& operator[](int axis) { return dims_[axis]; }
  const Dims& dims() const { return dims_; }
  int64_t numel() const;

  // Row-major strides in elements.
  Dims Strides() const;

  // "[8,128]"; "[]" for a scalar.
  std::string ToString() const;

  friend bool operator==(const Shape& a, const Shape& b) { return a.dims_ == b.dims_; }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const Shape& s) {
    return H::combine(std::move(h), s.dims_);
  }

 private:
  Dims dims_;
};

std::ostream& operator<<(std::ostream& os, const Shape& shape);

// The longest extent and the most elements a tensor may have: 2^60, so that the element and
// byte offsets of every dtype fit int64 (and no count of elements wraps).
inline constexpr int64_t kMaxElements = int64_t{1} << 60;

// Whether `shape`'s extents are each in [0, kMaxElements] and so is their product.
bool WithinLimits(const Shape& shape);

// NumPy broadcasting of two shapes. When they do not broadcast: InvalidArgument whose
// message names the conflict ("dimension 1 of the result: 3 vs 4").
absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b);

// Strides (in elements) with which an output of `out` reads a row-major input of `in` that
// broadcasts to it: 0 on broadcast axes. `in` must broadcast to `out`.
Shape::Dims BroadcastStrides(const Shape& in, const Shape& out);

// Maps a possibly negative axis into [0, rank); false when out of range.
bool NormalizeAxis(int64_t axis, int rank, int* normalized);

}  // namespace tessel

#endif  // TESSEL_CORE_SHAPE_H_
