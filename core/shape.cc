#include "core/shape.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessel {

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

bool WithinLimits(const Shape& shape) {
  int64_t n = 1;
  bool empty = false;
  for (int64_t d : shape.dims()) {
    if (d < 0 || d > kMaxElements) return false;
    empty = empty || d == 0;
    if (!empty && __builtin_mul_overflow(n, d, &n)) return false;
  }
  return empty || n <= kMaxElements;
}

Shape::Dims Shape::Strides() const {
  Dims strides(dims_.size());
  int64_t stride = 1;
  for (int i = rank() - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= dims_[i];
  }
  return strides;
}

std::string Shape::ToString() const { return absl::StrCat("[", absl::StrJoin(dims_, ","), "]"); }

std::ostream& operator<<(std::ostream& os, const Shape& shape) { return os << shape.ToString(); }

absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  Shape::Dims dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i;
    const int ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a[ia] : 1;
    const int64_t db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", i, " of the result: ", da, " vs ", db));
    }
    dims[i] = da == 1 ? db : da;
  }
  return Shape(dims);
}

Shape::Dims BroadcastStrides(const Shape& in, const Shape& out) {
  Shape::Dims in_strides = in.Strides();
  Shape::Dims strides(out.rank(), 0);
  for (int i = 0; i < in.rank(); ++i) {
    const int o = out.rank() - in.rank() + i;
    strides[o] = (in[i] == 1 && out[o] != 1) ? 0 : in_strides[i];
  }
  return strides;
}

bool NormalizeAxis(int64_t axis, int rank, int* normalized) {
  if (axis < -rank || axis >= rank) return false;
  *normalized = static_cast<int>(axis < 0 ? axis + rank : axis);
  return true;
}

}  // namespace tessel
