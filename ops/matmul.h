// Matrix products (api.md). (M,K)x(K,N), and batched (...,M,K)x(...,K,N) with broadcast
// batch dimensions; a 1-D operand is a vector as in NumPy. Floating dtypes only; f16/bf16
// accumulate in float and return their dtype (mixed dtypes promote).
#ifndef TESSEL_OPS_MATMUL_H_
#define TESSEL_OPS_MATMUL_H_

#include <vector>

#include "core/tensor.h"

namespace tessel {

Tensor matmul(const Tensor& a, const Tensor& b);

// matmul(a[i], b[i]) for each i (the experts of a mixture of experts, adapters): independent
// products of any sizes. Realized together, the GPU planner runs them as one grouped launch
// where it can (16-bit, 2-D); it finds such groups among plain matmuls too, so this is a
// convenience. The lists must be as long as each other.
std::vector<Tensor> grouped_matmul(const std::vector<Tensor>& a, const std::vector<Tensor>& b);

// How f32 matmuls recorded from now on may use tensor cores. kHighest (the default): computed
// in f32. kTF32: both operands read as TF32 (their 10 leading mantissa bits, truncated, as
// Hopper's tensor cores read f32), products accumulated in f32; on GPUs with tensor cores
// (sm_80 and later) several times faster. The CPU backend truncates the same way, so the
// devices agree. kHigh: each operand split into a TF32 part and a TF32 remainder, three
// tensor-core products (big x big, big x small, small x big; "3xTF32"): each product's
// relative error at most about 2^-21 against f32's 2^-24; the tensor cores' own adds
// truncate, so each stage's partial sums join the accumulators in f32 (error within a small
// multiple of f32's, tested against f64); the CPU backend computes it in f32. 16-bit matmuls
// are unaffected. The setting is process-wide and read when a matmul is recorded.
enum class MatmulPrecision { kHighest, kHigh, kTF32 };
void set_matmul_precision(MatmulPrecision precision);
MatmulPrecision matmul_precision();

}  // namespace tessel

#endif  // TESSEL_OPS_MATMUL_H_
