// Structural operations composed of views (api.md, "Structure"): each is reshapes,
// broadcasts, slices, concats or an index comparison, so it fuses as index math and copies
// nothing unless realized. ATen's semantics.
#ifndef TESSEL_OPS_STRUCTURE_COMPOSITE_H_
#define TESSEL_OPS_STRUCTURE_COMPOSITE_H_

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace tessel {

// Removes `axis` if its extent is 1 (else returns x unchanged, as torch.squeeze(x, dim)).
Tensor squeeze(const Tensor& x, int axis);
// Inserts an axis of extent 1 before `axis` (in [-rank - 1, rank]).
Tensor unsqueeze(const Tensor& x, int axis);
// Joins tensors of one shape along a new axis.
Tensor stack(const std::vector<Tensor>& xs, int axis);
// Pieces of `axis` of the given sizes, which must add up to its extent.
std::vector<Tensor> split(const Tensor& x, std::vector<int64_t> sizes, int axis);
// `n` pieces of `axis` of ceil(extent / n) elements, the last smaller (as torch.chunk: fewer
// pieces where the extent runs out).
std::vector<Tensor> chunk(const Tensor& x, int n, int axis);
// `before[i]` and `after[i]` elements of `value` around axis i (one entry per axis; a
// negative entry removes elements instead, as ATen's constant padding does).
Tensor pad(const Tensor& x, std::vector<int64_t> before, std::vector<int64_t> after,
           double value = 0);
// Tiles x `times[i]` times along axis i (torch.Tensor.repeat: more entries than axes add
// leading axes).
Tensor repeat(const Tensor& x, std::vector<int64_t> times);
// The lower (upper) triangle of the last two axes: elements with col - row <= diagonal
// (>= diagonal) kept, the others 0.
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);

}  // namespace tessel

#endif  // TESSEL_OPS_STRUCTURE_COMPOSITE_H_
