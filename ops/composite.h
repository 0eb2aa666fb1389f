// Composite operations (api.md), built from primitives so that fusion sees through them:
// a softmax is max, sub, exp, sum, div, and fuses into one normalization kernel.
// f16/bf16 inputs are computed in f32 and cast back, as PyTorch does.
#ifndef TESSEL_OPS_COMPOSITE_H_
#define TESSEL_OPS_COMPOSITE_H_

#include "core/tensor.h"

namespace tessel {

// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
Tensor gelu(const Tensor& x);
// 0.5 x (1 + erf(x / sqrt(2)))
Tensor gelu_erf(const Tensor& x);
// x * sigmoid(x)
Tensor silu(const Tensor& x);

// exp(x - max) / sum(exp(x - max)) along `axis`: large inputs do not overflow.
Tensor softmax(const Tensor& x, int axis = -1);
Tensor log_softmax(const Tensor& x, int axis = -1);

// Over the last axis. `weight` and `bias` have the size of that axis; an empty Tensor()
// leaves either out.
Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps = 1e-5);
Tensor rms_norm(const Tensor& x, const Tensor& weight, double eps = 1e-6);

// matmul(x, w) + b, with w of shape (K, N) and b of shape (N) (or empty).
Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b);

}  // namespace tessel

#endif  // TESSEL_OPS_COMPOSITE_H_
