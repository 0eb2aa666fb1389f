// The pieces reduction and normalization kernels share (codegen/reduction_codegen.cc stages
// rows on chip, codegen/streaming_reduction.cc streams long ones): the row layout, the
// accumulators and how they combine, and the positions of row and reduced-space values.
#ifndef TESSEL_CODEGEN_ROW_COMMON_H_
#define TESSEL_CODEGEN_ROW_COMMON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/code_writer.h"
#include "codegen/expr_emitter.h"
#include "codegen/index_expr.h"
#include "codegen/kernel_source.h"
#include "fusion/plan.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {

struct RowLayout {
  Shape space;
  std::vector<int64_t> axes;
  int64_t rows = 1, length = 1;  // R and L
  bool trailing = false;         // the reduced axes are the last ones: rows are contiguous
  Shape kept, reduced;           // the row index space and the column index space
};

RowLayout LayoutOf(const FusedKernel& k);
// Position in the row space of lane `col` (an expression) of row `row`.
IndexExpr RowIndex(const RowLayout& l, const std::string& row, const std::string& col,
                   int vector_width, const std::string& guard);
// Whether columns nj .. nj + n - 1 lie side by side in memory in every buffer of the row
// space's shape (row-major): the innermost axis is kept and its extent a multiple of n, so
// that no run straddles its end and every run starts at a multiple of n elements.
bool ColumnRunsAdjacent(const RowLayout& l, int n);
// RowIndex for lanes in pairs of adjacent columns (where ColumnRunsAdjacent(l, 2)): lane k at row
// `row` + (k & 1) (`row` even) and reduced position `col` (which may use k >> 1). A pair is
// two consecutive, aligned elements: one load where the buffer is read directly.
IndexExpr PairedColumnIndex(const RowLayout& l, const std::string& row, const std::string& col,
                            const std::string& guard);
// The position of a reduced-space value (one per row) in its own shape.
// Reduced values have the row space's shape with the reduced axes kept as 1 or dropped.
IndexExpr ReducedIndex(const RowLayout& l, const Shape& shape, const std::string& row);

// How values of one reduction combine, in registers and across the block.
struct Accumulator {
  const Node* reduction;
  std::string name;  // acc0, acc1, ...: its register
  DType acc;         // what it holds: f32 (also for f16/bf16), f64, i32 (also for bool) or i64
  OpKind combine;    // kSum (also for mean), kProd, kMax or kMin

  bool floating() const { return IsFloating(acc); }
  bool wide() const { return DTypeSize(acc) == 8; }
  const char* type() const { return CudaComputeType(acc); }
  std::string Identity() const {
    switch (combine) {
      case OpKind::kSum:
        return acc == DType::kF64 ? "0.0" : acc == DType::kF32 ? "0.0f" : "0";
      case OpKind::kProd:
        return acc == DType::kF64 ? "1.0" : acc == DType::kF32 ? "1.0f" : "1";
      case OpKind::kMax:
        return acc == DType::kF64   ? "__longlong_as_double(0xfff0000000000000ll)"
               : acc == DType::kI64 ? "(-9223372036854775807ll - 1)"
               : acc == DType::kF32 ? "__int_as_float(0xff800000)"
                                    : "(-2147483647 - 1)";
      default:
        return acc == DType::kF64   ? "__longlong_as_double(0x7ff0000000000000ll)"
               : acc == DType::kI64 ? "9223372036854775807ll"
               : acc == DType::kF32 ? "__int_as_float(0x7f800000)"
                                    : "2147483647";
    }
  }
  // The functor tessel_block_reduce takes.
  std::string Functor() const {
    if (combine == OpKind::kSum) return floating() ? "tessel_sum_op()" : "tessel_isum_op()";
    if (combine == OpKind::kProd) return floating() ? "tessel_prod_op()" : "tessel_iprod_op()";
    return combine == OpKind::kMax ? "tessel_max_op()" : "tessel_min_op()";
  }
  std::string Combine(const std::string& a, const std::string& b) const {
    if (combine == OpKind::kSum) {
      return floating() ? absl::StrCat(a, " + ", b) : absl::StrCat("tessel_iadd(", a, ", ", b, ")");
    }
    if (combine == OpKind::kProd) {
      return floating() ? absl::StrCat(a, " * ", b) : absl::StrCat("tessel_imul(", a, ", ", b, ")");
    }
    return absl::StrCat(combine == OpKind::kMax ? "tessel_max(" : "tessel_min(", a, ", ", b, ")");
  }
  // Its block-reduction scratch array in shared memory.
  std::string Scratch() const { return absl::StrCat("scratch_", DTypeName(acc)); }
};

Accumulator AccumulatorOf(const Node* r);
// Converts a finished accumulator to the reduction's value (mean divides; halves round).
// A reduced extent whose leading axis is a kernel's rows argument (a batch reduced): the
// elements of the other reduced axes, and the index_t expression of the whole extent.
struct RowsLength {
  int64_t per_row = 1;
  std::string expression;
};
RowsLength RowsLengthOf(const RowLayout& l);
// `variable_length`: where the kernel takes the reduced extent from its rows argument, the
// index_t expression a mean divides by instead of `length`.
std::string Finish(const Accumulator& a, const std::string& acc, int64_t length,
                   const std::optional<std::string>& variable_length = std::nullopt);
// The kernel's accumulators (acc0, acc1, ...), one per reduction it accumulates.
std::vector<Accumulator> Accumulators(const FusedKernel& k);
// Whether any value the kernel computes is 8 bytes wide (f64, i64): it then holds half as many
// values a thread in registers.
bool HoldsWideValues(const FusedKernel& k);
// The guard of lane position `col(k)` in a staged row or column of `length` (empty where
// every lane is in range: not `ragged`); for a part of a cluster block (which declares
// `start`), declares how many of the part's values exist (the last part may be short).
std::string PartGuard(CodeWriter& w, int cluster, int64_t part, int64_t length, bool ragged);
// A cluster kernel's last barrier, split: `ArriveAfterClusterReads` after its last cluster
// reduction (the block reads no other block's slots after it), `WaitBeforeLeaving` at its
// end (no block leaves, freeing its slots, while another may read them). The stores
// between run while the cluster's late blocks finish their reads (lab: +4-5% of copy
// bandwidth on softmax over long columns, bench/RESULTS.md, thirtieth session).
void ArriveAfterClusterReads(CodeWriter& w);
void WaitBeforeLeaving(CodeWriter& w);
// Whether input `n` is read along the rows of `l` (it holds more than a value a row), not
// broadcast over them.
bool ReadAlongRows(const Node& n, const RowLayout& l);
// Elements per vector access along a row: 16 bytes of the widest value read or written along
// rows. Values of at most one element per row (argmax's i64 result, cross-entropy's i64
// targets) do not count: they would halve a bf16 row's loads to 4 bytes (argmax measured 46%
// of copy on the H100 so). A wider vector is still correct for them (aligned, contiguous).
int VectorWidthFor(const FusedKernel& k, const RowLayout& l);
// One shared scratch array per accumulator type, for tessel_block_reduce.
void DeclareScratch(CodeWriter& w, const std::vector<Accumulator>& accs);
// acc = op(acc, v[k]) over the lanes that pass `guard` (all when it is empty); `target`:
// the register(s) accumulated into, which may use k (a.name where empty).
void Accumulate(CodeWriter& w, const Accumulator& a, const Value& v, int lanes,
                const std::string& guard, const std::string& target = "");
// The block-wide reduction of `v` (every thread's accumulator), as an expression.
std::string BlockReduce(const Accumulator& a, const std::string& v);
// Workspace entry `index` of accumulator a: 8-byte slots when any accumulator is 8 bytes wide,
// so that every accumulator's range stays its own.
std::string WorkspaceEntry(const Accumulator& a, const std::string& index, bool wide_slots);
// Stores outputs of the reduced space (one value per row, written where `writer` holds:
// thread 0 of a block that reduces one row; empty: by every thread that gets here).
void StoreReduced(CodeWriter& w, ExprEmitter& e, const KernelSource& ks, const RowLayout& l,
                  const std::string& row, const std::string& writer = "threadIdx.x == 0");

// Reductions over leading or middle axes, the innermost axis kept: threads along it
// (coalesced), the reduced extent split over threads and blocks (column_reduction.cc).
bool UsesColumns(const FusedKernel& k, const RowLayout& l);
// Whether such a kernel takes its reduced extent's leading axis as the rows argument: axis 0
// is reduced and dynamic in every reduction (sum(dh, {0}), a bias's gradient over a batch).
bool ColumnsTakeRows(const FusedKernel& k, const RowLayout& l, const DynamicRows& rows);
KernelSource Columns(const FusedKernel& k, const RowLayout& l, KernelSource ks,
                     const DynamicRows* rows = nullptr);

// Normalizations over leading or middle axes, the innermost axis kept, whose reduced extent
// fits in registers: threads along the kept axis, each holding part of a column
// (column_normalization.cc).
bool UsesColumnStaging(const FusedKernel& k, const RowLayout& l);
KernelSource ColumnStaged(const FusedKernel& k, const RowLayout& l, KernelSource ks);

// Normalizations over many rows too long for a block's registers (FusedKernel::
// held_row_bytes): a block per row, the row's inputs held in its shared memory (row_held.cc).
KernelSource RowHeld(const FusedKernel& k, const RowLayout& l, KernelSource ks,
                     const DynamicRows* rows = nullptr);

// Rows too long to stage: a block per row streaming it, or, for rows of many chunks, two
// launches (chunks of rows, then the chunks in a fixed order).
// Whether such a kernel takes its row's leading axis as the rows argument: a reduction of every
// axis (the batch's among them) to one value (a loss's mean over a batch).
bool StreamingTakesRows(const FusedKernel& k, const RowLayout& l, const DynamicRows& rows);
KernelSource Streaming(const FusedKernel& k, const RowLayout& l, KernelSource ks,
                       const DynamicRows* rows = nullptr);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_ROW_COMMON_H_
