#include "ops/composite.h"

#include <cmath>

#include "ops/matmul.h"
#include "ops/pointwise.h"
#include "ops/record.h"
#include "ops/reduce.h"
#include "ops/structure.h"

namespace tessel {
namespace {

using ops_internal::CheckedAxis;
using ops_internal::CheckedLineAxis;
using ops_internal::CommonDevice;
using ops_internal::Describe;

// Integer inputs become f32 and half inputs compute in f32 (f64 in f64); ToOutput undoes the
// latter.
Tensor ToCompute(const Tensor& x) {
  return x.dtype() == DType::kF32 || x.dtype() == DType::kF64 ? x : cast(x, DType::kF32);
}
Tensor ToOutput(const Tensor& y, DType input) { return IsFloating(input) ? cast(y, input) : y; }

Tensor CheckedFloating(absl::string_view op, const Tensor& x) {
  CommonDevice(op, {&x});
  if (x.dtype() == DType::kBool) ThrowOpError(op, "does not take ", Describe(x));
  return x;
}

// The normalization parameter `p` (weight or bias) must match x's last axis.
void CheckLastAxisParam(absl::string_view op, absl::string_view what, const Tensor& x,
                        const Tensor& p) {
  if (!p.defined()) return;
  CommonDevice(op, {&x, &p});
  const int64_t n = x.shape()[x.rank() - 1];
  if (p.shape() != Shape{n}) {
    ThrowOpError(op, what, " ", Describe(p), " does not match the last axis of ", Describe(x),
                 " (expected [", n, "])");
  }
}

void CheckNormInput(absl::string_view op, const Tensor& x) {
  CheckedFloating(op, x);
  if (x.rank() == 0) ThrowOpError(op, "needs rank >= 1, got ", Describe(x));
}

}  // namespace

Tensor gelu(const Tensor& x) {
  OpErrorScope scope("gelu");
  CheckedFloating("gelu", x);
  const Tensor v = ToCompute(x);
  // 0.5 v (1 + tanh(u)) with u = sqrt(2 / pi) (v + 0.044715 v^3), written as the identical
  // v * sigmoid(2u): one exponential and a reciprocal, no cancellation where tanh(u) nears
  // -1, and about half the instructions in a kernel.
  const double k = 2 * std::sqrt(2.0 / M_PI);
  return ToOutput(v * sigmoid(k * (v + 0.044715 * v * v * v)), x.dtype());
}

Tensor gelu_erf(const Tensor& x) {
  OpErrorScope scope("gelu_erf");
  CheckedFloating("gelu_erf", x);
  const Tensor v = ToCompute(x);
  return ToOutput(0.5 * v * (1.0 + erf(v * M_SQRT1_2)), x.dtype());
}

Tensor silu(const Tensor& x) {
  OpErrorScope scope("silu");
  CheckedFloating("silu", x);
  const Tensor v = ToCompute(x);
  return ToOutput(v * sigmoid(v), x.dtype());
}

Tensor softmax(const Tensor& x, int axis) {
  OpErrorScope scope("softmax");
  CheckedFloating("softmax", x);
  if (x.rank() == 0) {  // a line of one: axis 0 or -1
    CheckedLineAxis("softmax", x, axis);
    return reshape(softmax(reshape(x, {1}), 0), {});
  }
  const int a = CheckedAxis("softmax", x, axis);
  if (x.shape()[a] == 0) return x;  // no elements (attention over no keys): nothing to normalize
  const Tensor v = ToCompute(x);
  const Tensor e = exp(v - max(v, {a}, true));
  return ToOutput(e / sum(e, {a}, true), x.dtype());
}

Tensor log_softmax(const Tensor& x, int axis) {
  OpErrorScope scope("log_softmax");
  CheckedFloating("log_softmax", x);
  if (x.rank() == 0) {  // a line of one
    CheckedLineAxis("log_softmax", x, axis);
    return reshape(log_softmax(reshape(x, {1}), 0), {});
  }
  const int a = CheckedAxis("log_softmax", x, axis);
  if (x.shape()[a] == 0) return x;  // no elements (attention over no keys): nothing to normalize
  const Tensor v = ToCompute(x);
  const Tensor shifted = v - max(v, {a}, true);
  return ToOutput(shifted - log(sum(exp(shifted), {a}, true)), x.dtype());
}

Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps) {
  OpErrorScope scope("layer_norm");
  CheckNormInput("layer_norm", x);
  CheckLastAxisParam("layer_norm", "weight", x, weight);
  CheckLastAxisParam("layer_norm", "bias", x, bias);
  const Tensor v = ToCompute(x);
  const Tensor centered = v - mean(v, {-1}, true);
  Tensor y = centered * rsqrt(mean(centered * centered, {-1}, true) + eps);
  if (weight.defined()) y = y * weight;
  if (bias.defined()) y = y + bias;
  return ToOutput(y, x.dtype());
}

Tensor rms_norm(const Tensor& x, const Tensor& weight, double eps) {
  OpErrorScope scope("rms_norm");
  CheckNormInput("rms_norm", x);
  CheckLastAxisParam("rms_norm", "weight", x, weight);
  const Tensor v = ToCompute(x);
  Tensor y = v * rsqrt(mean(v * v, {-1}, true) + eps);
  if (weight.defined()) y = y * weight;
  return ToOutput(y, x.dtype());
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  OpErrorScope scope("linear");
  Tensor y = matmul(x, w);
  if (b.defined() && !BroadcastShapes(y.shape(), b.shape()).ok()) {
    ThrowOpError("linear", "bias ", Describe(b), " does not broadcast to the product ", Describe(y),
                 " of ", Describe(x), " x ", Describe(w));
  }
  return b.defined() ? y + b : y;
}

}  // namespace tessel
