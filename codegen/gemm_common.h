// What every GEMM kernel generator shares: the problem as the kernel sees it (each operand's
// buffer and layout, the sizes, the batch), and the epilogue, printed by the expression
// emitter at any position of the output. FusedKernel -> KernelSource.
#ifndef TESSEL_CODEGEN_GEMM_COMMON_H_
#define TESSEL_CODEGEN_GEMM_COMMON_H_

#include <string>
#include <utility>
#include <vector>

#include "codegen/code_writer.h"
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
  // Staged (gemm_staging.h): the kernel's staging entries first copy the buffer into the
  // workspace at `workspace_offset` bytes, as matrices of `rows` rows of `inner` elements
  // padded with zeros to `pitch`, transposed where `stage_transposed`; the mainloop reads
  // that copy. Else `pitch` is the buffer's row length.
  bool staged = false, stage_transposed = false;
  int64_t rows = 0, inner = 0, pitch = 0;
  int64_t workspace_offset = 0;
};

struct GemmProblem {
  const Node* matmul = nullptr;
  GemmOperand a, b;  // [.., m, k] x [.., k, n]
  int64_t m = 0, n = 0, k = 0;
  // m in the source: the number, or "rows" where the kernel takes it as an argument (then `m`
  // is the most rows the kernel serves, and `least_m` the fewest, for the tile's choice).
  std::string m_expr;
  int64_t least_m = 0;
  bool rows_argument = false;
  // K is the rows argument instead (GemmTakesRowsAsK: a weight gradient's
  // matmul(transpose(x), dh) over a batch that varies); `k` is then the most it serves.
  bool k_argument = false;
  Shape batch;        // the output's batch axes
  bool tf32 = false;  // f32 operands may be read as TF32 (set_matmul_precision)
  // ... as three TF32 products of each operand's TF32 part and remainder (kHigh); tf32 too.
  bool split_tf32 = false;
  int64_t staging_bytes = 0;       // the staged operands' copies (GemmOperand::staged)
  bool stage_splits_tf32 = false;  // the copies hold TF32 parts and remainders (kHigh)
};

GemmProblem AnalyzeGemm(const FusedKernel& kernel, const DynamicRows* rows = nullptr);
// Each part of the kernel (FusedKernel::gemm_parts): sibling GEMMs share A, m and k.
std::vector<GemmProblem> AnalyzeGemmParts(const FusedKernel& kernel,
                                          const DynamicRows* rows = nullptr);

// A matmul operand as `kernel` reads it: its buffer, read through the views the planner left
// unwritten (IsMatmulOperandView: transposes, reshapes of the batch axes).
GemmOperand OperandOf(const FusedKernel& kernel, const Node& operand);

// Whether the GEMM kernel can take its output's rows as the rows argument (not a grouped
// one): a 2-D output with dynamic rows, A read as stored ([rows, k]) and B static; every other
// dynamic value of the kernel is then an epilogue value of the output's rows (2-D).
bool GemmTakesRows(const FusedKernel& kernel, const DynamicRows& rows);
// Whether a single GEMM can take its K as the rows argument: A read transposed from a [rows, m]
// buffer and B as stored from a [rows, n] buffer, both 2-D with dynamic rows, the output and its
// epilogue static; the kernel's other values that hold the batch are those buffers and the
// views between them and the matmul (a transposed view is a `rows.fixed` value), and none
// computes a `rows.fixed_math` value (a gather along the batch in the epilogue).
bool GemmTakesRowsAsK(const FusedKernel& kernel, const DynamicRows& rows);

// Sets the launch's grid for `tiles_n` x CeilDiv(m, tile_m) x batch tiles, as a function of
// the rows argument where the kernel takes it.
void SetGemmGrid(const GemmProblem& p, int64_t tile_m, int64_t tiles_n, Launch* launch);

// Whether an operation of the kernel calls a function with a stack frame
// (CudaExprCallsWithStack): NVRTC 13.0 crashes compiling such calls into kernels whose
// warpgroups trade registers (setmaxnreg), so those run on the mma.sync kernels.
bool CallsWithStack(const FusedKernel& kernel);

// Whether both operands suit the tensor-core kernels: the same 16-bit dtype (or f32 with
// TF32 allowed); rows of any length (staged where they are not 16-byte multiples).
bool TensorCoreOperands(const GemmProblem& p);

// The configuration members both tensor-core mainloops read (inside `struct gemm_config`):
// sizes (but m, which is an argument), operand layouts, row pitches and dtype, and each
// operand's batch entry for an output entry.
void EmitOperandConfig(CodeWriter& w, const GemmProblem& p);

// The Hopper kernel's tiling: BM x BN output tiles, BK-deep stages in a ring of `stages`,
// tiles walked in bands of `group_m` tile rows. 16 rows a band: the 132 blocks running at
// once then share 16 tile rows of A and about 8 tile columns of B in L2 (H200, forty-seventh
// session, bench/labs/gemm_walk_lab.py, 500 launches: q/k/v at M = 8192 0.5906-0.5920 ms on
// bands of 8, 0.5837-0.5886 on 16, 0.5895 on 32, 0.601-0.609 on 2 or 4; SwiGLU's dual GEMM
// at M = 8192 2.207-2.220 / 2.176-2.180 / 2.205-2.217 / 2.31-2.51).
struct GemmTile {
  int bm = 128, bn = 256, bk = 64, stages = 4, group_m = 16;
  bool swap = false;    // the operands trade places in the tensor cores (gemm_sm90_tiles.h)
  bool keep_a = false;  // A's lines stay in L2 (evict_last), B's go first (gemm_sm90_tiles.h)
};

Shape BatchOf(const Shape& s);

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// An expression for the element offset of `operand`'s matrix for output batch entry `batch`
// (an expression naming the entry), in units of whole matrices.
std::string OperandMatrixIndex(const GemmOperand& operand, const Shape& out_batch,
                               const std::string& batch);

// How a kernel's epilogue sees the matmul: each thread handles `lanes` outputs of one row,
// lane k at column col + lane_column (an expression of k).
struct EpilogueSite {
  EpilogueSite(int lanes, std::string batch, std::string row, std::string col)
      : lanes(lanes), batch(std::move(batch)), row(std::move(row)), col(std::move(col)) {}
  int lanes = 1;
  std::string batch, row, col;  // expressions naming the batch entry, the row, the first column
  std::string matmul_value;     // the matmul at lane k (f32, rounded here), an expression of k
  // Instead of matmul_value: an array of 32-bit words holding the 16-bit matmul's lanes in
  // pairs. The epilogue then keeps 16-bit values paired (ExprEmitter::PairHalves).
  std::string matmul_words;
  // A dual GEMM's second matmul (GemmForm::kDual), bound to the words `partner_words`
  // at the same positions.
  const Node* partner = nullptr;
  std::string partner_words;
  // Every position the kernel visits lies inside the output: no bounds checks needed.
  bool rows_inside = false, cols_inside = false;
  std::string lane_column = "k";
  int run = 0;  // lanes come in runs of this many adjacent columns (0: all `lanes`)
  // Inputs of the output's shape are loaded first (a residual): only where every such input
  // is read by the epilogue.
  bool preload_inputs = true;
};

// Binds the matmul to the site's value (or words), then computes and stores every output of
// the kernel that reads it (with sibling GEMMs, the outputs of p's part) at the site's
// positions, guarded by row < m and column < n where positions can fall outside. Runs of
// adjacent lanes load and store as vectors (up to 8) where the row length keeps them aligned.
void EmitGemmEpilogue(CodeWriter& w, const KernelSource& ks, const GemmProblem& p,
                      const EpilogueSite& site);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GEMM_COMMON_H_
