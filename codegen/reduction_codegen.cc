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
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

struct RowLayout {
  Shape space;
  std::vector<int64_t> axes;
  int64_t rows = 1, length = 1;  // R and L
  bool trailing = false;         // the reduced axes are the last ones: rows are contiguous
  Shape kept, reduced;           // the row index space and the column index space
};

RowLayout LayoutOf(const FusedKernel& k) {
  RowLayout l;
  l.space = k.row_space;
  l.axes = k.reduced_axes;
  Shape::Dims kept, reduced;
  for (int d = 0; d < k.row_space.rank(); ++d) {
    const bool r = std::binary_search(l.axes.begin(), l.axes.end(), d);
    (r ? reduced : kept).push_back(k.row_space[d]);
  }
  l.kept = Shape(kept);
  l.reduced = Shape(reduced);
  l.rows = l.kept.numel();
  l.length = l.reduced.numel();
  l.trailing = true;
  for (size_t i = 0; i < l.axes.size(); ++i) {
    l.trailing = l.trailing && l.axes[i] == k.row_space.rank() - static_cast<int>(l.axes.size()) +
                                                static_cast<int>(i);
  }
  return l;
}

// Position in the row space of lane `col` (an expression) of row `row`.
IndexExpr RowIndex(const RowLayout& l, const std::string& row, const std::string& col,
                   int vector_width, const std::string& guard) {
  IndexExpr k = FromLinear(l.kept, row, false, 1);
  IndexExpr r = FromLinear(l.reduced, col, true, 1);
  std::vector<std::string> dims;
  std::vector<bool> lane;
  size_t ik = 0, ir = 0;
  for (int d = 0; d < l.space.rank(); ++d) {
    const bool reduced = std::binary_search(l.axes.begin(), l.axes.end(), d);
    dims.push_back(reduced ? r.dims[ir] : k.dims[ik]);
    lane.push_back(reduced ? r.lane[ir++] : k.lane[ik++]);
  }
  IndexExpr idx = FromDims(l.space, dims, lane);
  if (l.trailing) {
    idx.linear = absl::StrCat("(", row, " * ", l.length, " + ", col, ")");
    idx.linear_lane = true;
    idx.vector_width = vector_width;
  }
  idx.lane_guard = guard;
  return idx;
}

// The position of a reduced-space value (one per row) in its own shape.
// Reduced values have the row space's shape with the reduced axes kept as 1 or dropped.
IndexExpr ReducedIndex(const RowLayout& l, const Shape& shape, const std::string& row) {
  if (shape.rank() == l.space.rank()) {
    return Broadcast(RowIndex(l, row, "0", 1, ""), l.space, shape);
  }
  const IndexExpr kept = FromLinear(l.kept, row, false, 1);
  return FromDims(shape, kept.dims, kept.lane);
}

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

Accumulator AccumulatorOf(const Node* r) {
  const OpKind combine = r->op() == OpKind::kMean ? OpKind::kSum : r->op();
  const DType in = r->input(0).dtype();
  const DType acc = in == DType::kF64 || in == DType::kI64 ? in
                    : IsFloating(in)                       ? DType::kF32
                                                           : DType::kI32;
  return Accumulator{r, "", acc, combine};
}

// Converts a finished accumulator to the reduction's value (mean divides; halves round).
std::string Finish(const Accumulator& a, const std::string& acc, int64_t length) {
  const Node* r = a.reduction;
  std::string v = acc;
  if (r->op() == OpKind::kMean) {
    v = a.wide() ? absl::StrCat("(", acc, " / (double)", length, ")")
                 : absl::StrCat("(", acc, " / ", length, ".0f)");
  }
  if (r->dtype() == DType::kBool) return absl::StrCat("(", v, " != 0)");
  if (r->dtype() == DType::kBF16) return absl::StrCat("tessel_round_bf16(", v, ")");
  if (r->dtype() == DType::kF16) return absl::StrCat("tessel_round_f16(", v, ")");
  return v;
}

std::vector<Accumulator> Accumulators(const FusedKernel& k) {
  std::vector<Accumulator> out;
  for (const Node* n : k.nodes) {
    if (GetOpInfo(n->op()).category != OpCategory::kReduce || IsDegenerateReduction(*n) ||
        CombinesNothing(*n)) {
      continue;  // inlined, not accumulated
    }
    out.push_back(AccumulatorOf(n));
    out.back().name = absl::StrCat("acc", out.size() - 1);
  }
  return out;
}

int OutputSlot(const KernelSource& ks, const Node* n) {
  return static_cast<int>(std::find(ks.outputs.begin(), ks.outputs.end(), n) - ks.outputs.begin());
}

int VectorWidthFor(const FusedKernel& k, const RowLayout& l) {
  int64_t widest = 1;
  for (const Node* n : k.inputs) widest = std::max(widest, DTypeSize(n->dtype()));
  for (const Node* n : k.outputs) widest = std::max(widest, DTypeSize(n->dtype()));
  const int v = static_cast<int>(std::min<int64_t>(8, 16 / widest));
  return l.trailing && l.length % v == 0 ? v : 1;
}

void DeclareScratch(CodeWriter& w, const std::vector<Accumulator>& accs) {
  std::vector<std::string> declared;
  for (const Accumulator& a : accs) {
    if (std::find(declared.begin(), declared.end(), a.Scratch()) != declared.end()) continue;
    declared.push_back(a.Scratch());
    w.Line("__shared__ ", a.type(), " ", a.Scratch(), "[32];");
  }
}

// acc = op(acc, v[k]) over the lanes that pass `guard` (all when it is empty).
void Accumulate(CodeWriter& w, const Accumulator& a, const Value& v, int lanes,
                const std::string& guard) {
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", lanes, "; ++k) ",
         guard.empty() ? "" : absl::StrCat("if (", guard, ") "), a.name, " = ",
         a.Combine(a.name, absl::StrCat("(", a.type(), ")", v.At())), ";");
}

std::string BlockReduce(const Accumulator& a, const std::string& v) {
  // Integer identities are int literals: cast to the accumulator's type (long long too).
  const std::string cast = a.floating() ? "" : absl::StrCat("(", a.type(), ")");
  return absl::StrCat("tessel_block_reduce(", v, ", ", a.Functor(), ", ", cast, a.Identity(), ", ",
                      a.Scratch(), ")");
}

// Workspace entry `index` of accumulator a: 8-byte slots when any accumulator is 8 bytes wide,
// so that every accumulator's range stays its own.
std::string WorkspaceEntry(const Accumulator& a, const std::string& index, bool wide_slots) {
  if (!wide_slots || a.wide()) return absl::StrCat("((", a.type(), "*)ws)[", index, "]");
  return absl::StrCat("(*(", a.type(), "*)((char*)ws + (", index, ") * 8))");
}

// Stores outputs of the reduced space (one value per row, written by thread 0).
void StoreReduced(CodeWriter& w, ExprEmitter& e, const KernelSource& ks, const RowLayout& l,
                  const std::string& row) {
  for (const Node* out : ks.outputs) {
    if (out->shape() == l.space) continue;
    const Value v = e.Get(out, ReducedIndex(l, out->shape(), row));
    w.Line("if (threadIdx.x == 0) out", OutputSlot(ks, out), "[", row,
           "] = ", StoreConvert(out->dtype(), v.At("0")), ";");
  }
}

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
  const int64_t per_leading = l.rows / std::max<int64_t>(l.space[0], 1);  // rows per rows unit
  CodeWriter w;
  BeginSource(w, k, rows);
  {
    auto body = w.Block("extern \"C\" __global__ void __launch_bounds__(", threads, ") ",
                        kNamePlaceholder, "(", ParameterList(ks), ")");
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

KernelSource Streaming(const FusedKernel& k, const RowLayout& l, KernelSource ks) {
  constexpr int kThreads = 256;
  const int vec = VectorWidthFor(k, l);
  const int64_t parts = std::clamp<int64_t>(l.length / (kThreads * vec * 16), 1, 1024);
  const int64_t chunk = ((l.length + parts - 1) / parts + vec - 1) / vec * vec;
  const std::vector<Accumulator> accs = Accumulators(k);
  const int64_t slots = static_cast<int64_t>(accs.size()) * l.rows * parts;
  const bool wide_slots =
      std::any_of(accs.begin(), accs.end(), [](const Accumulator& a) { return a.wide(); });
  ks.workspace_bytes = slots * (wide_slots ? 8 : 4);
  CodeWriter w;
  BeginSource(w, k);
  {
    auto body = w.Block("extern \"C\" __global__ void __launch_bounds__(", kThreads, ") ",
                        kNamePlaceholder, "_stage1(", ParameterList(ks), ")");
    w.Line("// ", l.rows, " rows of ", l.length, ", each in ", parts, " chunks of ", chunk);
    DeclareScratch(w, accs);
    w.Line("const index_t row = blockIdx.x;");
    w.Line("const index_t begin = (index_t)blockIdx.y * ", chunk, ";");
    w.Line("const index_t end = min(begin + ", chunk, ", (index_t)", l.length, ");");
    for (const Accumulator& a : accs) w.Line(a.type(), " ", a.name, " = ", a.Identity(), ";");
    {
      auto loop = w.Block("for (index_t c = begin + (index_t)threadIdx.x * ", vec,
                          "; c < end; c += ", kThreads * vec, ")");
      const std::string guard = "c + k < end";
      const IndexExpr idx = RowIndex(l, "row", "(c + k)", vec, guard);
      ExprEmitter e(&w, vec, ks);
      for (const Accumulator& a : accs) {
        Accumulate(w, a, e.Get(&a.reduction->input(0), idx), vec, guard);
      }
    }
    for (size_t i = 0; i < accs.size(); ++i) {
      const Accumulator& a = accs[i];
      const std::string& acc = a.name;
      w.Line("{");
      w.Line("  const ", a.type(), " total = ", BlockReduce(a, acc), ";");
      w.Line("  if (threadIdx.x == 0) ",
             WorkspaceEntry(
                 a, absl::StrCat("(", i, " * ", l.rows, " + row) * ", parts, " + blockIdx.y"),
                 wide_slots),
             " = total;");
      w.Line("}");
    }
  }
  w.Blank();
  {
    auto body = w.Block("extern \"C\" __global__ void __launch_bounds__(", kThreads, ") ",
                        kNamePlaceholder, "_stage2(", ParameterList(ks), ")");
    DeclareScratch(w, accs);
    w.Line("const index_t row = blockIdx.x;");
    ExprEmitter e(&w, 1, ks);
    for (size_t i = 0; i < accs.size(); ++i) {
      const Accumulator& a = accs[i];
      const std::string& acc = a.name;
      w.Line(a.type(), " ", acc, " = ", a.Identity(), ";");
      w.Line("for (int p = threadIdx.x; p < ", parts, "; p += ", kThreads, ") ", acc, " = ",
             a.Combine(acc, WorkspaceEntry(
                                a, absl::StrCat("(", i, " * ", l.rows, " + row) * ", parts, " + p"),
                                wide_slots)),
             ";");
      const Value r =
          e.Define(std::string(OpName(a.reduction->op())), CudaComputeType(a.reduction->dtype()),
                   false, Finish(a, BlockReduce(a, a.name), l.length));
      e.Bind(a.reduction, ReducedIndex(l, a.reduction->shape(), "row"), r);
    }
    StoreReduced(w, e, ks, l, "row");
  }
  Launch stage1, stage2;
  stage1.entry = absl::StrCat(kNamePlaceholder, "_stage1");
  stage1.grid = {l.rows, parts, 1};
  stage2.entry = absl::StrCat(kNamePlaceholder, "_stage2");
  stage2.grid = {l.rows, 1, 1};
  stage1.block = stage2.block = kThreads;
  ks.launches = {stage1, stage2};
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
  return kernel.staged ? Staged(kernel, layout, std::move(ks), rows)
                       : Streaming(kernel, layout, std::move(ks));
}

}  // namespace tessel::codegen
