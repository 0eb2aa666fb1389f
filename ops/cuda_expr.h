// Each elementwise operation's scalar CUDA expression, for the code generator's one
// expression emitter (pointwise kernels, reduction prologues and epilogues, GEMM epilogues).
#ifndef TESSEL_OPS_CUDA_EXPR_H_
#define TESSEL_OPS_CUDA_EXPR_H_

#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/op_kind.h"

namespace tessel {

// The C++ type generated code computes `dtype` in: float for f32/f16/bf16, int, or bool.
const char* CudaComputeType(DType dtype);
// The dtype generated code computes `dtype` in: f32 for the 16-bit floats, else itself.
DType CudaComputeDType(DType dtype);

// The expression for `op` on `args`, already in the operand compute type `operand`.
// `op` is an elementwise operation other than cast.
std::string CudaScalarExpr(OpKind op, DType operand, const std::vector<std::string>& args);

// Whether `op`'s expression on `operand` calls a function that keeps a stack frame (f64 sin
// and cos: their argument reduction's slow path). NVRTC 13.0 crashes (SIGSEGV) compiling such
// a call into a kernel whose warpgroups trade registers (setmaxnreg), so those kernels leave
// such ops out.
bool CudaExprCallsWithStack(OpKind op, DType operand);

// Whether `op`'s result is always one of its operands' values, or one negated: it needs no
// rounding to a 16-bit operand dtype (a bf16 where, max or abs of bf16 values is bf16).
bool SelectsAnOperand(OpKind op);

}  // namespace tessel

#endif  // TESSEL_OPS_CUDA_EXPR_H_
