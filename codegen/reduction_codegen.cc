// Reduction and normalization kernels over a row space: each output row reduces L elements.
//
// Staged (normalization, and reductions of rows up to FusionOptions::max_staged_row, or that
// many per block of a cluster): one block (or cluster) per row; each thread holds its share
// of the row in registers ("lanes"), so chained reductions (layer norm's mean, then
// variance) and the row-wide epilogue (softmax's divide) read the input once. Held (many rows
// longer than that, FusedKernel::held_row_bytes): a block per row, the row in its shared
// memory (row_held.cc). Streaming (longer rows): a block per row that streams it, or, for rows of
// many chunks, two launches: stage 1 reduces chunks of each row into a workspace, stage 2 reduces
// the chunks in a fixed order and applies the epilogue. Both orders are fixed, so the same input
// gives the same bits (no atomics).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "codegen/row_common.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

// How a staged row is spread: over `cluster` blocks (1: one block holds it), each holding a
// `part` of it as `threads` threads x `lanes` lanes, in vectors of `vec`.
struct StagedShape {
  int vec = 1;
  int cluster = 1;
  int64_t part = 0;
  int threads = 32;
  int lanes = 1;
};

StagedShape ShapeOf(const FusedKernel& k, const RowLayout& l) {
  StagedShape s;
  s.vec = VectorWidthFor(k, l);
  // A block of a cluster holds 1024 threads x 16 lanes of 4-byte values, half that where
  // values are 8 bytes wide (registers); at most the planner's cluster_blocks share a row
  // (1 where clusters do not exist: one block holds it, however long).
  const int64_t block_row = BlockValues(HoldsWideValues(k));
  s.cluster =
      static_cast<int>(std::min<int64_t>((l.length + block_row - 1) / block_row, k.cluster_blocks));
  // Each block's part: whole vectors, so that every part starts aligned.
  s.part = s.cluster == 1 ? l.length
                          : ((l.length + s.cluster - 1) / s.cluster + s.vec - 1) / s.vec * s.vec;
  const int64_t groups = (s.part + s.vec - 1) / s.vec;
  // About 2 vector groups per thread, in whole warps: few registers, many rows per SM.
  const int64_t wanted = ((groups + 1) / 2 + 31) / 32 * 32;
  s.threads = static_cast<int>(std::clamp<int64_t>(wanted, 32, 1024));
  s.lanes = static_cast<int>((groups + s.threads - 1) / s.threads * s.vec);
  return s;
}

// `rows`: the leading extent of the row space is the kernel's rows argument. Rows longer
// than a block holds (the planner allows them where clusters exist) are shared by the blocks
// of a thread-block cluster, each holding a contiguous part; their partial reductions
// combine through distributed shared memory (tessel_cluster_reduce).
KernelSource Staged(const FusedKernel& k, const RowLayout& l, KernelSource ks,
                    const DynamicRows* rows) {
  const StagedShape s = ShapeOf(k, l);
  const int vec = s.vec, cluster = s.cluster, threads = s.threads, lanes = s.lanes;
  const int64_t part = s.part;
  const std::vector<Accumulator> accs = Accumulators(k);
  ks.takes_rows = rows != nullptr;
  ks.schedule =
      absl::StrCat(cluster == 1 ? "a block per row ("
                                : absl::StrCat("a cluster of ", cluster, " blocks per row ("),
                   threads, " threads", cluster == 1 ? "" : " each", "), the row held on chip",
                   l.trailing ? "" : " (rows not contiguous: strided reads)");
  const int64_t per_leading = l.rows / std::max<int64_t>(l.space[0], 1);  // rows per rows unit
  CodeWriter w;
  BeginSource(w, k, rows);
  {
    auto body = KernelBlock(w, absl::StrCat(threads), kNamePlaceholder, ks, cluster);
    w.Line("// ", rows != nullptr ? absl::StrCat("rows x ", per_leading) : absl::StrCat(l.rows),
           " rows of ", l.length, ": ", threads, " threads x ", lanes, " lanes hold ",
           cluster == 1 ? "a row" : absl::StrCat("a part of ", part, " (", cluster, " a row)"),
           " (", vec, "-element vectors)");
    DeclareScratch(w, accs);
    const std::string col = cluster == 1 ? "col(k)" : "(start + col(k))";
    if (cluster == 1) {
      w.Line("const index_t row = blockIdx.x;");
    } else {
      for (const Accumulator& a : accs) w.Line("__shared__ ", a.type(), " slot_", a.name, "[2];");
      w.Line("const index_t row = blockIdx.x / ", cluster, ";");
      w.Line("const index_t start = (index_t)(blockIdx.x % ", cluster, ") * ", part,
             ";  // this block's part");
    }
    w.Line("const int tid = threadIdx.x;");
    w.Line("auto col = [tid](int k) -> index_t { return (index_t)((k / ", vec, ") * ", threads,
           " + tid) * ", vec, " + k % ", vec, "; };");
    // Parts that fill every lane of a row that fills every part need no bounds checks.
    const bool ragged = part % (int64_t{threads} * lanes) != 0 || part * cluster != l.length;
    const std::string guard = PartGuard(w, cluster, part, l.length, ragged);
    const IndexExpr idx = RowIndex(l, "row", col, vec, guard);
    ExprEmitter e(&w, lanes, ks);
    for (const Accumulator& a : accs) {
      const Node& in = a.reduction->input(0);
      const Value v = e.Get(&in, idx);
      w.Line(a.type(), " ", a.name, " = ", a.Identity(), ";");
      Accumulate(w, a, v, lanes, guard);
      std::string reduced = BlockReduce(a, a.name);
      if (cluster > 1) {
        reduced = absl::StrCat("tessel_cluster_reduce<", cluster, ">(", reduced, ", ", a.Functor(),
                               ", slot_", a.name, ", 1)");
      }
      const Value r =
          e.Define(std::string(OpName(a.reduction->op())), CudaComputeType(a.reduction->dtype()),
                   false, Finish(a, reduced, l.length));
      e.Bind(a.reduction, ReducedIndex(l, a.reduction->shape(), "row"), r);
    }
    if (cluster > 1) ArriveAfterClusterReads(w);
    for (const Node* out : ks.outputs) {
      if (out->shape() == l.space) {
        e.Store(absl::StrCat("out", OutputSlot(ks, out)), out, idx, e.Get(out, idx));
      }
    }
    StoreReduced(w, e, ks, l, "row",
                 cluster == 1
                     ? "threadIdx.x == 0"
                     : absl::StrCat("threadIdx.x == 0 && blockIdx.x % ", cluster, " == 0"));
    if (cluster > 1) WaitBeforeLeaving(w);
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.grid[0] = l.rows * cluster;
  if (rows != nullptr) launch.rows_grid = RowsGrid{per_leading, 1, cluster};
  launch.block = threads;
  launch.cluster = cluster;
  ks.launches.push_back(launch);
  FinishSource(k, w.text(), &ks);
  return ks;
}

}  // namespace

bool ReductionTakesRows(const FusedKernel& kernel, const DynamicRows& rows) {
  if (kernel.kind == KernelKind::kReduction && kernel.row_space.rank() > 0) {
    const RowLayout layout = LayoutOf(kernel);
    if (ColumnsTakeRows(kernel, layout, rows) || StreamingTakesRows(kernel, layout, rows)) {
      return true;  // the batch reduced, along columns or with every axis
    }
  }
  if (!kernel.staged || kernel.row_space.rank() == 0 || kernel.reduced_axes.empty() ||
      kernel.reduced_axes[0] == 0) {
    return false;  // streaming sizes its workspace by the rows; axis 0 reduced: rows static
  }
  for (const Node* n : kernel.nodes) {
    const OpCategory c = GetOpInfo(n->op()).category;
    if (c == OpCategory::kReduce && !IsDegenerateReduction(*n) && !rows.Has(&n->input(0))) {
      return false;
    }
  }
  return true;
}

KernelSource GenerateReduction(const FusedKernel& kernel, const DynamicRows* rows) {
  KernelSource ks = NewKernelSource(kernel);
  const RowLayout layout = LayoutOf(kernel);
  // Columns size their grid by the rows they keep: a plan that takes kept rows as an argument
  // (a batch that varies) keeps a block per row. A batch that columns reduce is their length.
  if (UsesColumns(kernel, layout) && (rows == nullptr || ColumnsTakeRows(kernel, layout, *rows))) {
    return Columns(kernel, layout, std::move(ks), rows);
  }
  if (rows == nullptr && UsesColumnStaging(kernel, layout)) {
    return ColumnStaged(kernel, layout, std::move(ks));
  }
  // A row that holds the batch is streamed whatever its length now: its length varies.
  if (rows != nullptr && StreamingTakesRows(kernel, layout, *rows)) {
    return Streaming(kernel, layout, std::move(ks), rows);
  }
  if (kernel.staged && kernel.held_row_bytes > 0 && layout.trailing) {
    return RowHeld(kernel, layout, std::move(ks), rows);
  }
  return kernel.staged ? Staged(kernel, layout, std::move(ks), rows)
                       : Streaming(kernel, layout, std::move(ks));
}

}  // namespace tessel::codegen
