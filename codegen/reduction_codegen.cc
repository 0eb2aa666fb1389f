// Reduction and normalization kernels over a row space: each output row reduces L elements.
//
// Staged (normalization, and reductions of rows up to FusionOptions::max_staged_row): one
// block per row; each thread holds its share of the row in registers ("lanes"), so chained
// reductions (layer norm's mean, then variance) and the row-wide epilogue (softmax's divide)
// read the input once. Streaming (longer rows): two launches; stage 1 reduces chunks of each
// row into a workspace, stage 2 reduces the chunks in a fixed order and applies the epilogue.
// Both orders are fixed, so the same input gives the same bits (no atomics).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "codegen/row_common.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

// `rows`: the leading extent of the row space is the kernel's rows argument.
KernelSource Staged(const FusedKernel& k, const RowLayout& l, KernelSource ks,
                    const DynamicRows* rows) {
  const int vec = VectorWidthFor(k, l);
  const int64_t groups = (l.length + vec - 1) / vec;
  // About 2 vector groups per thread, in whole warps: few registers, many rows per SM.
  const int64_t wanted = ((groups + 1) / 2 + 31) / 32 * 32;
  const int threads = static_cast<int>(std::clamp<int64_t>(wanted, 32, 1024));
  const int64_t chunks = (groups + threads - 1) / threads;
  const int lanes = static_cast<int>(chunks * vec);
  const std::vector<Accumulator> accs = Accumulators(k);
  ks.takes_rows = rows != nullptr;
  ks.schedule = absl::StrCat("a block per row (", threads, " threads), the row held on chip",
                             l.trailing ? "" : " (rows not contiguous: strided reads)");
  const int64_t per_leading = l.rows / std::max<int64_t>(l.space[0], 1);  // rows per rows unit
  CodeWriter w;
  BeginSource(w, k, rows);
  {
    auto body = KernelBlock(w, absl::StrCat(threads), kNamePlaceholder, ks);
    w.Line("// ", rows != nullptr ? absl::StrCat("rows x ", per_leading) : absl::StrCat(l.rows),
           " rows of ", l.length, ": ", threads, " threads x ", lanes, " lanes hold a row (", vec,
           "-element vectors)");
    DeclareScratch(w, accs);
    w.Line("const index_t row = blockIdx.x;");
    w.Line("const int tid = threadIdx.x;");
    w.Line("auto col = [tid](int k) -> index_t { return (index_t)((k / ", vec, ") * ", threads,
           " + tid) * ", vec, " + k % ", vec, "; };");
    // Rows that fill every lane need no bounds checks.
    const bool ragged = l.length % (int64_t{threads} * lanes) != 0;
    const std::string guard = ragged ? absl::StrCat("col(k) < ", l.length) : "";
    const IndexExpr idx = RowIndex(l, "row", "col(k)", vec, guard);
    ExprEmitter e(&w, lanes, ks);
    for (const Accumulator& a : accs) {
      const Node& in = a.reduction->input(0);
      const Value v = e.Get(&in, idx);
      w.Line(a.type(), " ", a.name, " = ", a.Identity(), ";");
      Accumulate(w, a, v, lanes, guard);
      const Value r =
          e.Define(std::string(OpName(a.reduction->op())), CudaComputeType(a.reduction->dtype()),
                   false, Finish(a, BlockReduce(a, a.name), l.length));
      e.Bind(a.reduction, ReducedIndex(l, a.reduction->shape(), "row"), r);
    }
    for (const Node* out : ks.outputs) {
      if (out->shape() == l.space) {
        e.Store(absl::StrCat("out", OutputSlot(ks, out)), out, idx, e.Get(out, idx));
      }
    }
    StoreReduced(w, e, ks, l, "row");
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.grid[0] = l.rows;
  if (rows != nullptr) launch.rows_grid = RowsGrid{per_leading, 1, 1};
  launch.block = threads;
  ks.launches.push_back(launch);
  FinishSource(k, w.text(), &ks);
  return ks;
}

}  // namespace

bool ReductionTakesRows(const FusedKernel& kernel, const DynamicRows& rows) {
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
  // Columns size their grid and splits by the rows: a plan that takes the rows as an argument
  // (a batch that varies) keeps a block per row.
  if (rows == nullptr && UsesColumns(kernel, layout)) {
    return Columns(kernel, layout, std::move(ks));
  }
  if (rows == nullptr && UsesColumnStaging(kernel, layout)) {
    return ColumnStaged(kernel, layout, std::move(ks));
  }
  return kernel.staged ? Staged(kernel, layout, std::move(ks), rows)
                       : Streaming(kernel, layout, std::move(ks));
}

}  // namespace tessel::codegen
