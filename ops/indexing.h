// Picking and accumulating elements at positions held in integer tensors (i32 or i64).
// An index out of range is an Error at realize naming the operation, the index and the bound.
#ifndef TESSEL_OPS_INDEXING_H_
#define TESSEL_OPS_INDEXING_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/tensor.h"

namespace tessel {

// torch.gather: out[p] = x[p with p[axis] = index[p]]; index has x's rank and, on every other
// axis, an extent no larger than x's; the result has index's shape and x's dtype.
Tensor gather(const Tensor& x, int axis, const Tensor& index);
// x's entries along `axis` at the positions of the 1-D `index`, in its order.
Tensor index_select(const Tensor& x, int axis, const Tensor& index);
// Rows of `table` ([rows, width]) for integer `ids` of any shape: ids.shape + [width].
Tensor embedding(const Tensor& table, const Tensor& ids);
// torch.scatter_add: x with src[p] added at p with p[axis] = index[p], for every p of index
// (index no larger than src on every axis, nor than x but on `axis`; src of x's dtype). The
// additions run in index order, so the result is the same every time.
Tensor scatter_add(const Tensor& x, int axis, const Tensor& index, const Tensor& src);
// kF32 ids.shape + [classes], 1 where the last position equals the id, else 0. classes -1:
// the largest id plus one (realizes the ids, as PyTorch reads them).
Tensor one_hot(const Tensor& ids, int64_t classes = -1);

namespace ops_internal {
// Which function recorded a gather (its second attribute): out-of-range errors name it.
enum class IndexCaller : int64_t { kGather, kIndexSelect, kEmbedding, kOneHot };
absl::string_view IndexCallerName(IndexCaller caller);
// gather() as recorded for `caller` (programs parsed from text keep it).
Tensor Gather(IndexCaller caller, const Tensor& x, int axis, const Tensor& index);
// The error for index `value` out of range in gather or scatter_add `node`, on either device:
// "embedding: index 7 is out of range for axis 0 of f32[5,4] (size 5)".
absl::Status IndexOutOfRange(const Node& node, int64_t value);
}  // namespace ops_internal

}  // namespace tessel

#endif  // TESSEL_OPS_INDEXING_H_
