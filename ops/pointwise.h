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

Tensor cast(const Tensor& x, DType dtype);

// Binary, with broadcasting. Division of integers gives f32.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);

// Comparisons give kBool.
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);

// cond ? a : b elementwise; cond is kBool; all three broadcast together.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

// A scalar on either side takes the tensor's dtype (see PromoteWithScalar).
Tensor add(const Tensor& a, double b);
Tensor sub(const Tensor& a, double b);
Tensor mul(const Tensor& a, double b);
Tensor div(const Tensor& a, double b);
Tensor pow(const Tensor& a, double b);
Tensor maximum(const Tensor& a, double b);
Tensor minimum(const Tensor& a, double b);

// eq, ne, lt, le, gt, ge: kBool results of operands promoted together.
bool IsComparison(OpKind op);

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
