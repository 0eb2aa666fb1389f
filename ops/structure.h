// Structural operations (api.md): they move, repeat or select elements without arithmetic.
// Views (reshape, permute, transpose, broadcast_to, slice) become index math when fused.
#ifndef TESSEL_OPS_STRUCTURE_H_
#define TESSEL_OPS_STRUCTURE_H_

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace tessel {

// One dimension may be -1 (inferred).
Tensor reshape(const Tensor& x, Shape shape);
Tensor permute(const Tensor& x, std::vector<int> perm);
// Swaps the last two axes.
Tensor transpose(const Tensor& x);
Tensor broadcast_to(const Tensor& x, Shape shape);
// Elements start, start + step, ... before end of `axis` (step >= 1); negative start/end
// count from the end, and both are clamped to the axis (as Python slicing).
Tensor slice(const Tensor& x, int axis, int64_t start, int64_t end, int64_t step = 1);
// The elements in reverse order along each of `axes` (a view: index math when fused).
Tensor flip(const Tensor& x, std::vector<int> axes);
// Joins tensors along `axis`; all other dimensions must match. Dtypes promote.
Tensor concat(const std::vector<Tensor>& xs, int axis);

}  // namespace tessel

#endif  // TESSEL_OPS_STRUCTURE_H_
