// What every GEMM kernel generator shares: the problem as the kernel sees it (each operand's
// buffer and layout, the sizes, the batch), and the epilogue, printed by the expression
// emitter at any position of the output. FusedKernel -> KernelSource.
#ifndef TESSEL_CODEGEN_GEMM_COMMON_H_
#define TESSEL_CODEGEN_GEMM_COMMON_H_

#include <string>

#include "codegen/code_writer.h"
#include "codegen/expr_emitter.h"
#include "codegen/index_expr.h"
#include "codegen/kernel_source.h"
#include "fusion/plan.h"

namespace tessel::codegen {

// An operand of the matmul as stored: `buffer` holds it row-major, or with its last two
// axes swapped when `transposed` (the planner passes a transpose view's input unchanged).
struct GemmOperand {
  const Node* buffer = nullptr;
  bool transposed = false;
  Shape batch;  // the buffer's batch axes (all but the last two)
};

struct GemmProblem {
  const Node* matmul = nullptr;
  GemmOperand a, b;  // [.., m, k] x [.., k, n]
  int64_t m = 0, n = 0, k = 0;
  Shape batch;  // the output's batch axes
};

GemmProblem AnalyzeGemm(const FusedKernel& kernel);

// Whether both operands suit the tensor-core kernels: the same 16-bit dtype, and contiguous
// rows whose length is a multiple of 8 (16-byte copies, TMA's stride rule).
bool TensorCoreOperands(const GemmProblem& p);

// The configuration members both tensor-core mainloops read (inside `struct gemm_config`):
// sizes, operand layouts and dtype, and each operand's batch entry for an output entry.
void EmitOperandConfig(CodeWriter& w, const GemmProblem& p);

// The Hopper kernel's tiling: BM x BN output tiles, BK-deep stages in a ring of `stages`,
// tiles walked in bands of `group_m` tile rows.
struct GemmTile {
  int bm = 128, bn = 256, bk = 64, stages = 4, group_m = 8;
  int staging_bytes = 0;  // shared memory for the output's staging tiles
};
// The tile for an m x n output with `batch` entries (a heuristic: see gemm_sm90_codegen.cc),
// leaving room for staging tiles when the output is stored through them.
GemmTile ChooseGemmTile(int64_t m, int64_t n, int64_t batch, bool staged_store);

Shape BatchOf(const Shape& s);

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// An expression for the element offset of `operand`'s matrix for output batch entry `batch`
// (an expression naming the entry), in units of whole matrices.
std::string OperandMatrixIndex(const GemmOperand& operand, const Shape& out_batch,
                               const std::string& batch);

// The epilogue at `lanes` output positions per thread: binds the matmul to `accumulator`
// (an expression of the lane `k`, rounded to the matmul's dtype here), then computes every
// output of the kernel at positions (row, col + k) of batch entry `batch`, named by the given
// expressions, and (when `store`) writes them, guarded by row < m and col + k < n. Returns
// the outputs' values (in their compute type).
std::vector<Value> EmitGemmEpilogue(CodeWriter& w, const KernelSource& ks, const GemmProblem& p,
                                    int lanes, const std::string& batch, const std::string& row,
                                    const std::string& col, const std::string& accumulator,
                                    bool store = true);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GEMM_COMMON_H_
