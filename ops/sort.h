// Sorting along one axis: the order as kI64 indices, and the values taken in that order.
#ifndef TESSEL_OPS_SORT_H_
#define TESSEL_OPS_SORT_H_

#include <cstdint>
#include <utility>

#include "core/tensor.h"

namespace tessel {

// The positions that sort x along `axis`, stably (equal elements keep their order); NaN sorts
// as the largest value, as in PyTorch.
Tensor argsort(const Tensor& x, int axis = -1, bool descending = false);
// {values, indices}: x sorted along `axis` and the positions they came from.
std::pair<Tensor, Tensor> sort(const Tensor& x, int axis = -1, bool descending = false);
// {values, indices} of the k largest (or smallest) elements along `axis`, in sorted order,
// the earlier position first among equals; 0 <= k <= the axis's extent.
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int axis = -1, bool largest = true);

namespace ops_internal {
// The longest line CUDA sorts: its sort kernels count positions within a line (padded to a
// power of two, doubled while merging) in 32-bit ints.
constexpr int64_t kMaxCudaSortLine = int64_t{1} << 29;
}  // namespace ops_internal

}  // namespace tessel

#endif  // TESSEL_OPS_SORT_H_
