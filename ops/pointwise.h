// Elementwise operations (api.md): unary math, binary arithmetic with NumPy broadcasting and
// PyTorch type promotion, comparisons, where, cast, and the C++ operators.
#ifndef TESSEL_OPS_POINTWISE_H_
#define TESSEL_OPS_POINTWISE_H_

#include "core/tensor.h"

namespace tessel {

// Unary. Integer and bool inputs of the transcendental functions give f32.
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
// Rounding keeps the dtype (integers pass through); round is half to even, as PyTorch's.
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);
Tensor trunc(const Tensor& x);
// -1, 0 or 1 in x's dtype (NaN stays NaN).
Tensor sign(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
// kBool results; integer and bool operands are never NaN or infinite.
Tensor isnan(const Tensor& x);
Tensor isinf(const Tensor& x);
Tensor isfinite(const Tensor& x);
// x == 0, for operands of any dtype.
Tensor logical_not(const Tensor& x);

Tensor cast(const Tensor& x, DType dtype);

// Binary, with broadcasting. Division of integers gives f32.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
// The remainder of a / b with the sign of b (Python's %), and with the sign of a (C's fmod).
// An integer divisor of 0 gives 0 (PyTorch's CPU throws, its GPU gives an undefined value).
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, const Tensor& b);
// atan2(a, b): the angle of (b, a); integer operands give f32.
Tensor atan2(const Tensor& a, const Tensor& b);
// kBool results of operands of any dtypes, nonzero meaning true.
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
// min(max(x, lo), hi) (all hi where lo > hi; NaN stays NaN).
Tensor clamp(const Tensor& x, double lo, double hi);

// Comparisons give kBool.
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);

// cond ? a : b elementwise; cond is kBool; all three broadcast together. A scalar branch
// takes the other branch's dtype.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, double a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, double b);
// t with `value` where the kBool mask (broadcast to t's shape) is true.
Tensor masked_fill(const Tensor& t, const Tensor& mask, double value);

// A scalar on either side takes the tensor's dtype (see PromoteWithScalar).
Tensor add(const Tensor& a, double b);
Tensor sub(const Tensor& a, double b);
Tensor mul(const Tensor& a, double b);
Tensor div(const Tensor& a, double b);
Tensor pow(const Tensor& a, double b);
Tensor maximum(const Tensor& a, double b);
Tensor minimum(const Tensor& a, double b);
Tensor remainder(const Tensor& a, double b);
Tensor fmod(const Tensor& a, double b);
Tensor atan2(const Tensor& a, double b);
// Comparisons with a scalar on either side (an integer tensor against a fraction compares
// as f32).
Tensor eq(const Tensor& a, double b);
Tensor ne(const Tensor& a, double b);
Tensor lt(const Tensor& a, double b);
Tensor le(const Tensor& a, double b);
Tensor gt(const Tensor& a, double b);
Tensor ge(const Tensor& a, double b);
Tensor eq(double a, const Tensor& b);
Tensor ne(double a, const Tensor& b);
Tensor lt(double a, const Tensor& b);
Tensor le(double a, const Tensor& b);
Tensor gt(double a, const Tensor& b);
Tensor ge(double a, const Tensor& b);

// eq, ne, lt, le, gt, ge: kBool results of operands promoted together.
bool IsComparison(OpKind op);
// Operations whose result is kBool computed from their operands' own values: comparisons,
// isnan, isinf, isfinite and the logical operations.
bool ReadsOperandValues(OpKind op);

// The dtype an elementwise op's operands are converted to before it applies (both backends
// use it): the promoted operand type for comparisons, the result type otherwise (where's
// condition stays bool).
DType ElementwiseOperandDType(OpKind op, DType result, DType a, DType b);

Tensor operator-(const Tensor& x);
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(double a, const Tensor& b);

}  // namespace tessel

#endif  // TESSEL_OPS_POINTWISE_H_
