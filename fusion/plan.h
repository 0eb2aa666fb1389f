// FusionPlan: how a Program is cut into kernels. Graph -> FusionPlan -> KernelSource.
//
// A plan is data: each kernel lists the nodes it computes, the values it reads from memory
// (realized leaves or values other kernels write) and the values it writes, plus the reasons
// for its boundaries. Values a kernel computes but does not write are inlined: recomputed at
// whatever index its consumers need them, so views and broadcasts cost only index math.
#ifndef TESSEL_FUSION_PLAN_H_
#define TESSEL_FUSION_PLAN_H_

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/node.h"

namespace tessel {

enum class KernelKind {
  kPointwise,      // one or more iteration spaces ("segments"), elementwise work only
  kReduction,      // reductions over the same axes of one space, their prologue and epilogue
  kNormalization,  // reductions whose results are broadcast back over the rows they reduce
  kGemm,           // a matmul and its elementwise epilogue
  kScan,           // running sums or products along one axis, with the scan's prologue
  kSort,           // the sorted order (argsort, first k) along one axis, with its prologue
  kScatter,        // scatter_add: x plus src's values summed at index's positions
  kAttention,      // matmul(softmax(f(matmul(q, k^T))), v) without writing the scores
};
absl::string_view KernelKindName(KernelKind kind);

// A sum of exp(y - shift(m)) over rows where m is the max of y over the same rows (logsumexp,
// cross-entropy) and the rows are too long to stage: the kernel keeps (m, sum) as a running
// pair, rescaling the sum when m grows, so that it reads each row once. `shift` is m itself,
// or where(isfinite(m), m, c) (logsumexp's guard against an infinite max).
struct OnlineSum {
  const Node* sum = nullptr;
  const Node* max = nullptr;
  const Node* shift = nullptr;
};

// How the matmuls of a GEMM kernel share it (FusionOptions::gemm_groups).
enum class GemmForm {
  kSingle,
  // Matmuls of the same A, each a part of the kernel's output tiles with its own B and
  // epilogue (the kernel's outputs that read it).
  kSiblings,
  // Two matmuls of the same A and output shape whose results meet elementwise
  // (silu(x wg) * (x wu)): both are computed for each output tile and one epilogue reads
  // both, so that neither is written.
  kDual,
  // Independent matmuls (any A, M, N and K; mixture-of-experts), each a part of the tiles.
  kGrouped,
};

// Who merges the shares of an attention kernel split over the keys (FusionOptions::split_merge).
enum class SplitMerge {
  kChosen,  // as the schedule chooses for the shape (codegen/attention_schedule.cc)
  kLast,    // by the last share of each 64 rows to arrive, in the kernel
  kLaunch,  // a second launch
};

struct FusedKernel {
  KernelKind kind = KernelKind::kPointwise;
  // Every node computed here (inlined values included), producers first.
  std::vector<const Node*> nodes;
  std::vector<const Node*> inputs;   // read from memory
  std::vector<const Node*> outputs;  // written to memory
  // Kernels whose outputs this one reads.
  std::vector<int> depends_on;

  // Pointwise: one entry per iteration space; each output belongs to the segment of its shape.
  std::vector<Shape> segments;
  // Reduction and normalization: the space being reduced and the reduced axes (sorted);
  // scan, sort and scatter: the op's output space and its axis.
  Shape row_space;
  std::vector<int64_t> reduced_axes;
  // Whether a whole row is held on chip (normalization needs it; long rows stream).
  bool staged = false;
  // Above 0: a staged row is held in one block's shared memory, its inputs along the row
  // taking at most this many bytes (FusionOptions::held_row_bytes).
  int64_t held_row_bytes = 0;
  // The most blocks of a thread-block cluster that may share one staged row
  // (FusionOptions::cluster_blocks).
  int cluster_blocks = 1;
  // The same for long columns (FusionOptions::column_cluster_blocks).
  int column_cluster_blocks = 1;
  // Short columns held as a tile in shared memory from so many columns of so many values
  // (FusionOptions::column_tile_columns, column_tile_length; 0: never).
  int64_t column_tile_columns = 0;
  int64_t column_tile_length = 0;
  // Attention: whether a persistent kernel whose work tiles differ in cost (FusionOptions::
  // work_tickets) may have its blocks take them by ticket.
  bool work_tickets = false;
  // Attention split over the keys: who merges the shares (FusionOptions::split_merge).
  SplitMerge split_merge = SplitMerge::kChosen;
  // Streaming: sums that accumulate online with a max of the same kernel.
  std::vector<OnlineSum> online_sums;
  // Gemm: the matmul node. Attention: the output matmul (p v), and the scores matmul (q k^T)
  // and the softmax's input f(scores) (fusion/attention.h).
  const Node* matmul = nullptr;
  const Node* scores = nullptr;
  const Node* logits = nullptr;
  // Gemm: its matmuls (`matmul` first) and how they share the kernel (gemm_form).
  std::vector<const Node*> gemm_parts;
  GemmForm gemm_form = GemmForm::kSingle;

  // Why the kernel ends where it does: one line per boundary, with node numbers filled in by
  // PrintPlan ("{n}" is replaced with the text-form name of `notes_nodes[i]`).
  std::vector<std::string> notes;
  std::vector<const Node*> notes_nodes;
};

struct FusionPlan {
  std::vector<FusedKernel> kernels;  // in execution order: producers first
};

// Whether reductions of `space` over `axes` can read columns: the innermost axis is kept and
// at least a warp wide, so that a warp reads 32 rows' elements at consecutive addresses
// (codegen/column_reduction.cc does, for reduction kernels).
bool ReadsColumns(const Shape& space, const std::vector<int64_t>& axes);

// Values one block holds in registers when it stages rows or columns (1024 threads x 16),
// half as many 8-byte values: what the planner stages and the code generator lays out.
inline int64_t BlockValues(bool wide) { return wide ? 8192 : 16384; }
// The shared-memory bytes a row of `length` values of `dtype` takes when a block holds it
// (FusionOptions::held_row_bytes): whole 16-byte copies, so that the next row held starts
// aligned.
inline int64_t HeldRowBytes(int64_t length, DType dtype) {
  return (length * DTypeSize(dtype) + 15) / 16 * 16;
}
// Columns one block of a cluster holds of a long column group, by the reduced values'
// dtype: 32 bytes of each row (one memory sector), at most a warp.
inline int ColumnWidth(DType dtype) {
  return static_cast<int>(std::min<int64_t>(32, 32 / DTypeSize(dtype)));
}

// The plan as text, naming nodes as PrintGraph({outputs}) does:
//
//   kernel 0 normalization: max sub exp sum div
//     reads %0
//     writes %6
//     computes %2 %3 %4 %5 %6
//     note: ...
std::string PrintPlan(const FusionPlan& plan, const std::vector<const Node*>& graph_outputs);

}  // namespace tessel

#endif  // TESSEL_FUSION_PLAN_H_
