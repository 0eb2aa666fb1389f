#include "codegen/row_common.h"

#include <algorithm>

#include "codegen/kernel_common.h"

namespace tessel::codegen {

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
    // (One row, of every axis: no row term, whose stride a row of the batch's length varies.)
    idx.linear = l.rows == 1 ? absl::StrCat("(", col, ")")
                             : absl::StrCat("(", row, " * ", l.length, " + ", col, ")");
    idx.linear_lane = true;
    idx.vector_width = vector_width;
  }
  idx.lane_guard = guard;
  return idx;
}

bool ColumnRunsAdjacent(const RowLayout& l, int n) {
  const int last = l.space.rank() - 1;
  return last >= 0 && !std::binary_search(l.axes.begin(), l.axes.end(), last) &&
         l.space[last] >= n && l.space[last] % n == 0;
}

IndexExpr PairedColumnIndex(const RowLayout& l, const std::string& row, const std::string& col,
                            const std::string& guard) {
  IndexExpr idx = RowIndex(l, row, col, 1, guard);
  const int last = l.space.rank() - 1;
  idx.linear = absl::StrCat("(", LinearOffset(idx, l.space), " + (k & 1))");
  idx.linear_lane = true;
  idx.vector_width = 2;
  idx.dims[last] = absl::StrCat("(", idx.dims[last], " + (k & 1))");
  idx.lane[last] = true;
  return idx;
}

IndexExpr ReducedIndex(const RowLayout& l, const Shape& shape, const std::string& row) {
  if (shape.rank() == l.space.rank()) {
    return Broadcast(RowIndex(l, row, "0", 1, ""), l.space, shape);
  }
  const IndexExpr kept = FromLinear(l.kept, row, false, 1);
  return FromDims(shape, kept.dims, kept.lane);
}

Accumulator AccumulatorOf(const Node* r) {
  const OpKind combine = r->op() == OpKind::kMean ? OpKind::kSum : r->op();
  const DType in = r->input(0).dtype();
  // Integers in i64 where the result is (sums and products of i32 and bool), so that they
  // wrap as the CPU's do (fuzz seed 77218775: a product of 33 i32 values).
  const DType acc = in == DType::kF64 || in == DType::kI64 ? in
                    : IsFloating(in)                       ? DType::kF32
                    : r->dtype() == DType::kI64            ? DType::kI64
                                                           : DType::kI32;
  return Accumulator{r, "", acc, combine};
}

RowsLength RowsLengthOf(const RowLayout& l) {
  RowsLength r;
  r.per_row = l.length / std::max<int64_t>(l.space[0], 1);
  r.expression = r.per_row == 1 ? "(index_t)rows" : absl::StrCat("(index_t)rows * ", r.per_row);
  return r;
}

std::string Finish(const Accumulator& a, const std::string& acc, int64_t length,
                   const std::optional<std::string>& variable_length) {
  const Node* r = a.reduction;
  std::string v = acc;
  if (r->op() == OpKind::kMean) {
    const std::string n = variable_length.value_or(absl::StrCat(length));
    v = a.wide()                      ? absl::StrCat("(", acc, " / (double)", n, ")")
        : variable_length.has_value() ? absl::StrCat("(", acc, " / (float)", n, ")")
                                      : absl::StrCat("(", acc, " / ", n, ".0f)");
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

bool HoldsWideValues(const FusedKernel& k) {
  return std::any_of(k.nodes.begin(), k.nodes.end(),
                     [](const Node* n) { return DTypeSize(n->dtype()) == 8; });
}

void ArriveAfterClusterReads(CodeWriter& w) {
  w.Line("tessel_cluster_arrive();  // this block's reads of the others' slots are done");
}

void WaitBeforeLeaving(CodeWriter& w) {
  w.Line("tessel_cluster_wait();  // no block leaves while another may read its slots");
}

std::string PartGuard(CodeWriter& w, int cluster, int64_t part, int64_t length, bool ragged) {
  if (!ragged) return "";
  if (cluster == 1) return absl::StrCat("col(k) < ", length);
  w.Line("const index_t limit = min((index_t)", part, ", (index_t)", length,
         " - start);  // this part's values");
  return "col(k) < limit";
}

bool ReadAlongRows(const Node& n, const RowLayout& l) { return n.shape().numel() > l.rows; }

int VectorWidthFor(const FusedKernel& k, const RowLayout& l) {
  int64_t widest = 1;
  for (const Node* n : k.inputs) {
    if (ReadAlongRows(*n, l)) widest = std::max(widest, DTypeSize(n->dtype()));
  }
  for (const Node* n : k.outputs) {
    if (n->shape() == l.space) widest = std::max(widest, DTypeSize(n->dtype()));
  }
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

void Accumulate(CodeWriter& w, const Accumulator& a, const Value& v, int lanes,
                const std::string& guard, const std::string& target) {
  const std::string acc = target.empty() ? a.name : target;
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", lanes, "; ++k) ",
         guard.empty() ? "" : absl::StrCat("if (", guard, ") "), acc, " = ",
         a.Combine(acc, absl::StrCat("(", a.type(), ")", v.At())), ";");
}

std::string BlockReduce(const Accumulator& a, const std::string& v) {
  // Integer identities are int literals: cast to the accumulator's type (long long too).
  const std::string cast = a.floating() ? "" : absl::StrCat("(", a.type(), ")");
  return absl::StrCat("tessel_block_reduce(", v, ", ", a.Functor(), ", ", cast, a.Identity(), ", ",
                      a.Scratch(), ")");
}

std::string WorkspaceEntry(const Accumulator& a, const std::string& index, bool wide_slots) {
  if (!wide_slots || a.wide()) return absl::StrCat("((", a.type(), "*)ws)[", index, "]");
  return absl::StrCat("(*(", a.type(), "*)((char*)ws + (", index, ") * 8))");
}

void StoreReduced(CodeWriter& w, ExprEmitter& e, const KernelSource& ks, const RowLayout& l,
                  const std::string& row, const std::string& writer) {
  for (const Node* out : ks.outputs) {
    if (out->shape() == l.space) continue;
    const Value v = e.Get(out, ReducedIndex(l, out->shape(), row));
    w.Line(writer.empty() ? "" : absl::StrCat("if (", writer, ") "), "out", OutputSlot(ks, out),
           "[", row, "] = ", StoreConvert(out->dtype(), v.At("0")), ";");
  }
}

// `rows`: the leading extent of the row space is the kernel's rows argument.

}  // namespace tessel::codegen
