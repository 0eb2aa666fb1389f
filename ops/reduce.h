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

}  // namespace tessel

#endif  // TESSEL_OPS_REDUCE_H_
