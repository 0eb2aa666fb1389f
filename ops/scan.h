// Running sums and products along one axis. Tensor -> Graph: recorded like the other ops.
#ifndef TESSEL_OPS_SCAN_H_
#define TESSEL_OPS_SCAN_H_

#include "core/tensor.h"

namespace tessel {

// out[..., i, ...] = x[..., 0, ...] + ... + x[..., i, ...] along `axis` (and the product for
// cumprod). Floating inputs keep their dtype (16-bit floats accumulate wider); bool and
// integers give kI64, as in PyTorch.
Tensor cumsum(const Tensor& x, int axis);
Tensor cumprod(const Tensor& x, int axis);

}  // namespace tessel

#endif  // TESSEL_OPS_SCAN_H_
