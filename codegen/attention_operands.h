// How the attention kernel (codegen/attention_codegen.cc) reads q, k and v: each through the
// views below it at their own steps (core/strided_view.h), as a 5-D TMA map (wgmma) or as a
// pointer with a row step and batch offsets (mma.sync); head dimensions padded to 64, 128 or 256;
// the query heads of a K/V head folded into rows where that fills the tiles.
#ifndef TESSEL_CODEGEN_ATTENTION_OPERANDS_H_
#define TESSEL_CODEGEN_ATTENTION_OPERANDS_H_

#include <cstdint>
#include <string>

#include "codegen/kernel_source.h"
#include "core/strided_view.h"
#include "fusion/plan.h"

namespace tessel::codegen {

// q, k or v as the kernel reads it: the kernel input below the views it reads through, and
// the steps through that input; the head dimension's axis and the rows' (k is read as k^T:
// its last two axes swapped).
struct AttentionOperand {
  const Node* node = nullptr;  // as the matmul reads it
  StridedLayout layout;
  int d_axis = 0, row_axis = 0;
  Shape batch;  // node's batch axes
};

AttentionOperand ReadOperand(const FusedKernel& kernel, const Node& operand, bool k_t);

// The head dimension the kernel computes with: the operands' columns, padded with zeros to 64,
// 128 or 256 (a padded column adds nothing to Q K^T, and P V's are not stored).
int64_t HeadDimension(const AttentionOperand& q);

// Query heads that share their keys and values, folded into one matrix of rows: where k and
// v are broadcast over the innermost batch axes (grouped heads), q is not, and its rows and
// those axes step through memory as one, the `factor` query matrices of a group lie one
// after the other, and the kernel treats them as one of factor x sq rows. A block then reads
// each K and V tile once for all the group's heads: decoding (one query row a head) fills its
// tiles. Folded row r is row r % sq of batch entry entry * factor + r / sq.
struct Folding {
  int64_t factor = 1, sq = 1;
  int axes = 0;  // q's batch axes folded into its rows, the innermost
};

Folding FoldHeadGroups(const AttentionOperand& q, const AttentionOperand& k,
                       const AttentionOperand& v, const Shape& out_batch, int64_t sq,
                       int query_tile);

// The step of an operand's rows (where `fold` batch axes are folded into them, through those
// too).
int64_t RowStep(const AttentionOperand& o, int fold);

// An operand as a 5-D TMA map: columns, rows (`fold_axes` folded into them), then up to three
// batch axes, each at its own step; boxes of 64 columns (128 bytes, the swizzle's row) x
// `box_rows` rows (the kernel's query or key tile), zeros past the columns (a head dimension
// below 64 or 128).
TensorMapSpec OperandMap(const KernelSource& ks, const AttentionOperand& o, const Folding& f,
                         int fold_axes, int box_rows);

// The coordinates of OperandMap's dims 2 .. 4 for the output's batch entry `entry` (a C
// expression), as a brace list.
std::string MapCoordinates(const AttentionOperand& o, int fold_axes, const Shape& out_batch,
                           const std::string& entry);

// The elements before batch entry `entry`'s first row (the sm80 kernel's pointers).
std::string ElementOffset(const AttentionOperand& o, const Shape& out_batch,
                          const std::string& entry);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_ATTENTION_OPERANDS_H_
