// Matrix products (api.md). (M,K)x(K,N), and batched (...,M,K)x(...,K,N) with broadcast
// batch dimensions; a 1-D operand is a vector as in NumPy. Floating dtypes only; f16/bf16
// accumulate in float and return their dtype (mixed dtypes promote).
#ifndef TESSEL_OPS_MATMUL_H_
#define TESSEL_OPS_MATMUL_H_

#include "core/tensor.h"

namespace tessel {

Tensor matmul(const Tensor& a, const Tensor& b);

}  // namespace tessel

#endif  // TESSEL_OPS_MATMUL_H_
