// Reductions (api.md): over `axes` (empty: all; negative counts from the end), dropping the
// reduced axes unless `keepdim`. f16/bf16 accumulate in float or wider and return their dtype.
#ifndef TESSEL_OPS_REDUCE_H_
#define TESSEL_OPS_REDUCE_H_

#include <vector>

#include "core/tensor.h"

namespace tessel {

Tensor sum(const Tensor& x, std::vector<int> axes = {}, bool keepdim = false);
Tensor mean(const Tensor& x, std::vector<int> axes = {}, bool keepdim = false);
Tensor max(const Tensor& x, std::vector<int> axes = {}, bool keepdim = false);
Tensor min(const Tensor& x, std::vector<int> axes = {}, bool keepdim = false);
// The product (1 over nothing); bool and i32 give i64 (as PyTorch), which wraps as i64
// arithmetic does.
Tensor prod(const Tensor& x, std::vector<int> axes = {}, bool keepdim = false);

// Composed of the above (so they fuse like them). any/all: kBool, whether some/every element
// is nonzero (false/true over nothing).
Tensor any(const Tensor& x, std::vector<int> axes = {}, bool keepdim = false);
Tensor all(const Tensor& x, std::vector<int> axes = {}, bool keepdim = false);
// The variance about the mean, divided by max(0, n - correction) (Bessel's correction by
// default), and its square root; two passes over the values (the second of squared
// deviations), in f32 for f16/bf16 inputs, so offsets of 1e8 keep their digits.
Tensor var(const Tensor& x, std::vector<int> axes = {}, bool keepdim = false,
           int64_t correction = 1);
Tensor std(const Tensor& x, std::vector<int> axes = {}, bool keepdim = false,
           int64_t correction = 1);
// log(sum(exp(x))) without overflow: the maximum is subtracted first (rows of -inf give -inf).
Tensor logsumexp(const Tensor& x, std::vector<int> axes = {}, bool keepdim = false);
// The index (kI64) of the first largest / smallest element along `axis` (NaN counts as the
// largest and the smallest, as in PyTorch); the axis must not be empty. The extreme, a
// comparison and a min over positions: one reduction kernel on the GPU.
Tensor argmax(const Tensor& x, int axis, bool keepdim = false);
Tensor argmin(const Tensor& x, int axis, bool keepdim = false);

}  // namespace tessel

#endif  // TESSEL_OPS_REDUCE_H_
