// Column reductions: reductions over leading or middle axes whose innermost axis is kept
// (sum(x, {0}), mean(x, {1}) of [B, S, H]). A row (one output value) is then a strided column
// of the input, and a block per row reads it one element per stride: uncoalesced. Here a
// warp holds 32 consecutive rows instead (consecutive addresses along the kept innermost
// axis) and kRowThreads threads share each row's reduced extent; where the rows are too few
// to fill the GPU, blocks split that extent too (stage 1 to a workspace, stage 2 combines
// the splits). Every combination runs in a fixed order: the same input gives the same bits.
#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_common.h"
#include "codegen/row_common.h"

namespace tessel::codegen {
namespace {

constexpr int kWarp = 32;              // rows a block holds, one a lane
constexpr int kRowThreads = 8;         // threads that share a row's reduced extent
constexpr int kLanes = 8;              // elements a thread loads before it accumulates them
constexpr int64_t kWanted = 2048;      // blocks that fill an H100 (132 SMs x 8) twice, about
constexpr int64_t kMinPerThread = 64;  // reduced elements a thread takes at least per split

// Whether a lane holds two neighbouring columns, read as one load of both (a warp reads
// twice the bytes of a row an access): on the H100, sum(x, {0}) of [16384, 8192] bf16 72.8%
// -> 90.4% of copy, f32 94.4% -> 100.9%; mean over the middle axis of [64, 512, 4096] bf16
// 90.7% -> 96.0%, f32 98.7% -> 102.1% (bench/RESULTS.md, thirty-fourth session). 8-byte
// inputs keep a column a lane (not measured).
bool PairsColumns(const FusedKernel& k, const RowLayout& l) {
  if (!ColumnRunsAdjacent(l, 2)) return false;
  return std::all_of(k.inputs.begin(), k.inputs.end(), [&](const Node* n) {
    return !ReadAlongRows(*n, l) || DTypeSize(n->dtype()) <= 4;
  });
}

// Splits of a reduced extent of `length` over blocks: enough blocks to fill the GPU, each
// thread still with a good run of elements.
int64_t SplitsOf(const RowLayout& l, int64_t length, int columns) {
  if (l.rows == 0) return 1;
  const int64_t tiles = (l.rows + columns - 1) / columns;
  const int64_t most = std::max<int64_t>(1, length / (kRowThreads * kMinPerThread));
  return std::clamp<int64_t>((kWanted + tiles - 1) / tiles, 1, std::min<int64_t>(most, 1024));
}

// The reductions' values finished and the reduced space's outputs stored, by the threads of
// row slot 0 (`acc<i>` holds each row's combined accumulator).
void EmitResults(CodeWriter& w, const KernelSource& ks, const RowLayout& l,
                 const std::vector<Accumulator>& accs,
                 const std::optional<std::string>& variable_length, const std::string& writer) {
  ExprEmitter e(&w, 1, ks);
  for (const Accumulator& a : accs) {
    const Node* r = a.reduction;
    const Value v = e.Define(std::string(OpName(r->op())), CudaComputeType(r->dtype()), false,
                             Finish(a, a.name, l.length, variable_length));
    e.Bind(r, ReducedIndex(l, r->shape(), "row"), v);
  }
  StoreReduced(w, e, ks, l, "row", writer);
}

}  // namespace

bool UsesColumns(const FusedKernel& k, const RowLayout& l) {
  if (k.kind != KernelKind::kReduction || !k.online_sums.empty()) return false;
  if (!ReadsColumns(k.row_space, k.reduced_axes)) return false;
  for (const Node* out : k.outputs) {
    if (out->shape() == l.space) return false;  // an output over the rows needs them held
  }
  return !Accumulators(k).empty();
}

bool ColumnsTakeRows(const FusedKernel& k, const RowLayout& l, const DynamicRows& rows) {
  if (k.reduced_axes.empty() || k.reduced_axes[0] != 0 || !UsesColumns(k, l)) return false;
  for (const Node* n : k.nodes) {
    const OpCategory c = GetOpInfo(n->op()).category;
    if (c == OpCategory::kReduce && (!rows.Has(&n->input(0)) || n->input(0).shape() != l.space)) {
      return false;
    }
  }
  return true;
}

KernelSource Columns(const FusedKernel& k, const RowLayout& l, KernelSource ks,
                     const DynamicRows* rows) {
  const std::vector<Accumulator> accs = Accumulators(k);
  const bool pairs = PairsColumns(k, l);
  const int columns = pairs ? 2 * kWarp : kWarp, lanes = pairs ? 2 * kLanes : kLanes;
  // With rows (ColumnsTakeRows) the reduced extent is `rows` times the other reduced axes':
  // the splits are chosen for the most rows the kernel serves (fewer leave splits idle).
  const RowsLength of_rows = RowsLengthOf(l);
  const int64_t per_row = of_rows.per_row;
  const std::optional<std::string> variable_length =
      rows != nullptr ? std::optional<std::string>("length") : std::nullopt;
  const std::string length = variable_length.value_or(absl::StrCat(l.length));
  const int64_t splits = SplitsOf(l, rows != nullptr ? per_row * rows->max : l.length, columns);
  const int64_t step = kRowThreads * splits;
  ks.takes_rows = rows != nullptr;
  const bool wide_slots =
      std::any_of(accs.begin(), accs.end(), [](const Accumulator& a) { return a.wide(); });
  ks.schedule = absl::StrCat(
      "columns: a warp per ", columns, " along the kept innermost axis",
      pairs ? " (two a lane, read together)" : "", ", ", kRowThreads, " threads per column",
      splits > 1 ? absl::StrCat(", ", splits, " splits combined after") : "");
  if (splits > 1) {
    ks.workspace_bytes = static_cast<int64_t>(accs.size()) * splits * l.rows * (wide_slots ? 8 : 4);
  }
  auto slot = [&](size_t i, const std::string& split) {
    return WorkspaceEntry(
        accs[i], absl::StrCat("(", i, " * ", splits, " + ", split, ") * ", l.rows, " + row"),
        wide_slots);
  };
  // A lane's accumulators: one a column it holds.
  auto held = [&](const Accumulator& a) { return pairs ? absl::StrCat(a.name, "_pair") : a.name; };
  const std::string stage1 =
      splits > 1 ? absl::StrCat(kNamePlaceholder, "_columns") : kNamePlaceholder;
  CodeWriter w;
  BeginSource(w, k, rows);
  {
    auto body = KernelBlock(w, absl::StrCat(kWarp * kRowThreads), stage1, ks);
    w.Line("// ", l.rows, " columns of ",
           rows != nullptr ? absl::StrCat("rows x ", per_row) : length, ": ", columns, " a block, ",
           pairs ? "two" : "one", " a lane; ", kRowThreads, " threads share a column",
           splits > 1 ? absl::StrCat(", in ", splits, " splits") : "");
    // One buffer of the widest accumulator, the accumulators combined through it in turn
    // (one array each would pass the 48 KB of static shared memory with many siblings).
    w.Line("__shared__ ", wide_slots ? "double" : "float", " parts[", kRowThreads, " * ",
           columns + 1, "];");
    w.Line("const int lane = threadIdx.x % ", kWarp, ", part = threadIdx.x / ", kWarp, ";");
    if (rows != nullptr) w.Line("const index_t length = ", of_rows.expression, ";");
    const std::string first = pairs ? "pair" : "row";  // the lane's first column
    w.Line("const index_t ", first, " = (index_t)blockIdx.x * ", columns, " + ",
           pairs ? "2 * lane" : "lane", ";");
    for (const Accumulator& a : accs) {
      w.Line(a.type(), " ", a.name, " = ", a.Identity(), ";");
      if (pairs) w.Line(a.type(), " ", held(a), "[2] = {", a.Identity(), ", ", a.Identity(), "};");
    }
    {
      // (`rows` is even with pairs: `pair` in range puts `pair + 1` in range.)
      auto in_range = w.Block("if (", first, " < ", l.rows, ")");
      // This thread's elements of the column: part, part + step, ... from its split's start.
      w.Line("index_t c = (index_t)blockIdx.y * ", kRowThreads, " + part;");
      w.Line("auto col = [&](int k) -> index_t { return c + (index_t)", pairs ? "(k >> 1)" : "k",
             " * ", step, "; };");
      auto accumulate = [&](const std::string& guard) {
        const IndexExpr idx = pairs ? PairedColumnIndex(l, first, "col(k)", guard)
                                    : RowIndex(l, first, "col(k)", 1, guard);
        ExprEmitter e(&w, lanes, ks);
        for (const Accumulator& a : accs) {
          Accumulate(w, a, e.Get(&a.reduction->input(0), idx), lanes, guard,
                     pairs ? absl::StrCat(held(a), "[k & 1]") : "");
        }
      };
      {
        auto loop = w.Block("for (; c + ", (kLanes - 1) * step, " < ", length,
                            "; c += ", kLanes * step, ")");
        accumulate("");
      }
      auto tail = w.Block("if (c < ", length, ")");
      accumulate(absl::StrCat("col(k) < ", length));
    }
    // Each column's parts combined in part order by one thread (part 0, or parts 0 and 1 for
    // a pair's two columns), which then holds the column.
    const std::string own = pairs ? "2 * lane + part" : "lane";
    for (size_t i = 0; i < accs.size(); ++i) {
      const Accumulator& a = accs[i];
      const std::string view = absl::StrCat("((", a.type(), "*)parts)");
      if (i > 0) w.Line("__syncthreads();  // the last accumulator's parts are read");
      if (pairs) {
        w.Line(view, "[part * ", columns + 1, " + 2 * lane] = ", held(a), "[0];");
        w.Line(view, "[part * ", columns + 1, " + 2 * lane + 1] = ", held(a), "[1];");
      } else {
        w.Line(view, "[part * ", columns + 1, " + lane] = ", a.name, ";");
      }
      w.Line("__syncthreads();");
      w.Line("if (part < ", pairs ? 2 : 1, ") for (int p = ", pairs ? 0 : 1, "; p < ", kRowThreads,
             "; ++p) ", a.name, " = ",
             a.Combine(a.name, absl::StrCat(view, "[p * ", columns + 1, " + ", own, "]")), ";");
    }
    if (pairs) w.Line("const index_t row = pair + part;  // the column this thread holds");
    auto combine = w.Block("if (part < ", pairs ? 2 : 1, " && row < ", l.rows, ")");
    if (splits == 1) {
      EmitResults(w, ks, l, accs, variable_length, "");
    } else {
      for (size_t i = 0; i < accs.size(); ++i) {
        w.Line(slot(i, "blockIdx.y"), " = ", accs[i].name, ";");
      }
    }
  }
  if (splits > 1) {
    w.Blank();
    auto body = KernelBlock(w, "256", kNamePlaceholder, ks);
    w.Line("// each column's ", splits, " splits combined in order");
    w.Line("const index_t row = (index_t)blockIdx.x * 256 + threadIdx.x;");
    w.Line("if (row >= ", l.rows, ") return;");
    if (rows != nullptr) w.Line("const index_t length = ", of_rows.expression, ";");
    for (size_t i = 0; i < accs.size(); ++i) {
      const Accumulator& a = accs[i];
      w.Line(a.type(), " ", a.name, " = ", slot(i, "0"), ";");
      w.Line("for (int s = 1; s < ", splits, "; ++s) ", a.name, " = ",
             a.Combine(a.name, slot(i, "s")), ";");
    }
    EmitResults(w, ks, l, accs, variable_length, "");
  }
  Launch first_stage;
  first_stage.entry = stage1;
  first_stage.grid = {(l.rows + columns - 1) / columns, splits, 1};
  first_stage.block = kWarp * kRowThreads;
  ks.launches = {first_stage};
  if (splits > 1) {
    Launch combine;
    combine.entry = kNamePlaceholder;
    combine.grid = {(l.rows + 255) / 256, 1, 1};
    combine.block = 256;
    ks.launches.push_back(combine);
  }
  FinishSource(k, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
