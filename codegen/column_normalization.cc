// Normalizations over leading or middle axes (softmax(x, 0), layer_norm over the middle axis
// of [B, S, H]) whose reduced extent is short enough to hold on chip: as in
// column_reduction.cc a warp holds 32 consecutive rows (consecutive addresses along the kept
// innermost axis) and kParts threads share each row's reduced extent, but every thread keeps
// its elements in registers ("lanes"), so chained reductions and the epilogue read the input
// once, as the staged row kernel does for trailing axes. The parts combine through shared
// memory in a fixed order, the same in every part: the same input gives the same bits.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_common.h"
#include "codegen/row_common.h"

namespace tessel::codegen {
namespace {

constexpr int kWarp = 32;      // rows a block holds, one a lane
constexpr int kMaxParts = 32;  // threads that share a row: at most 1024 a block
constexpr int kWantLanes = 8;  // elements a thread holds, where the row is long enough
constexpr int kMaxLanes = 16;  // and at most (the staged row kernel's most, in registers);
                               // half that for 8-byte values

struct ColumnShape {
  int parts = 1;  // threads per row
  int lanes = 1;  // elements a thread holds
};

ColumnShape ShapeOf(const RowLayout& l) {
  ColumnShape s;
  s.parts =
      static_cast<int>(std::clamp<int64_t>((l.length + kWantLanes - 1) / kWantLanes, 1, kMaxParts));
  s.lanes = static_cast<int>((l.length + s.parts - 1) / s.parts);
  return s;
}

}  // namespace

bool UsesColumnStaging(const FusedKernel& k, const RowLayout& l) {
  if (!k.staged || !k.online_sums.empty() || l.trailing) return false;
  if (!ReadsColumns(k.row_space, k.reduced_axes) || l.length < 2) return false;
  const int most = HoldsWideValues(k) ? kMaxLanes / 2 : kMaxLanes;
  return ShapeOf(l).lanes <= most && !Accumulators(k).empty();
}

KernelSource ColumnStaged(const FusedKernel& k, const RowLayout& l, KernelSource ks) {
  const ColumnShape s = ShapeOf(l);
  const std::vector<Accumulator> accs = Accumulators(k);
  const bool wide_slots =
      std::any_of(accs.begin(), accs.end(), [](const Accumulator& a) { return a.wide(); });
  ks.schedule = absl::StrCat("columns held on chip: a warp per 32 along the kept innermost axis, ",
                             s.parts, " threads x ", s.lanes, " lanes per column");
  CodeWriter w;
  BeginSource(w, k);
  {
    auto body = KernelBlock(w, absl::StrCat(kWarp * s.parts), kNamePlaceholder, ks);
    w.Line("// ", l.rows, " columns of ", l.length, ": 32 a block, one a lane; ", s.parts,
           " threads x ", s.lanes, " lanes hold a column");
    // One buffer of the widest accumulator, the accumulators combined through it in turn.
    w.Line("__shared__ ", wide_slots ? "double" : "float", " parts[", s.parts * (kWarp + 1), "];");
    w.Line("const int lane = threadIdx.x % ", kWarp, ", part = threadIdx.x / ", kWarp, ";");
    w.Line("const index_t first = (index_t)blockIdx.x * ", kWarp, " + lane;");
    // Lanes past the last column compute the last one again (every read in bounds, every
    // barrier reached) and store nothing.
    w.Line("const bool valid = first < ", l.rows, ";");
    w.Line("const index_t row = valid ? first : ", l.rows - 1, ";");
    w.Line("auto col = [part](int k) -> index_t { return part + (index_t)k * ", s.parts, "; };");
    const bool ragged = int64_t{s.lanes} * s.parts != l.length;
    const std::string guard = ragged ? absl::StrCat("col(k) < ", l.length) : "";
    const IndexExpr idx = RowIndex(l, "row", "col(k)", 1, guard);
    ExprEmitter e(&w, s.lanes, ks);
    for (size_t i = 0; i < accs.size(); ++i) {
      const Accumulator& a = accs[i];
      const Value v = e.Get(&a.reduction->input(0), idx);
      w.Line(a.type(), " ", a.name, " = ", a.Identity(), ";");
      Accumulate(w, a, v, s.lanes, guard);
      const std::string view = absl::StrCat("((", a.type(), "*)parts)");
      if (i > 0) w.Line("__syncthreads();  // the last accumulator's parts are read");
      w.Line(view, "[part * ", kWarp + 1, " + lane] = ", a.name, ";");
      w.Line("__syncthreads();");
      // Every part combines the column's parts in the same order: one value in all of them.
      w.Line(a.name, " = ", view, "[lane];");
      w.Line("for (int p = 1; p < ", s.parts, "; ++p) ", a.name, " = ",
             a.Combine(a.name, absl::StrCat(view, "[p * ", kWarp + 1, " + lane]")), ";");
      const Value r =
          e.Define(std::string(OpName(a.reduction->op())), CudaComputeType(a.reduction->dtype()),
                   false, Finish(a, a.name, l.length));
      e.Bind(a.reduction, ReducedIndex(l, a.reduction->shape(), "row"), r);
    }
    IndexExpr store_at = idx;  // the values at idx, stored by valid lanes only
    store_at.thread_guard = "valid";
    for (const Node* out : ks.outputs) {
      if (out->shape() == l.space) {
        e.Store(absl::StrCat("out", OutputSlot(ks, out)), out, store_at, e.Get(out, idx));
      }
    }
    StoreReduced(w, e, ks, l, "row", "part == 0 && valid");
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.grid[0] = (l.rows + kWarp - 1) / kWarp;
  launch.block = kWarp * s.parts;
  ks.launches.push_back(launch);
  FinishSource(k, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
