// Streaming reductions: rows too long to hold on chip. Stage 1 reduces chunks of each row
// into a workspace, stage 2 reduces the chunks in a fixed order and applies the epilogue
// (where one block reads a whole row, stage 1 applies it and there is no stage 2). Both
// orders are fixed, so the same input gives the same bits (no atomics).
//
// An online sum (fusion/plan.h: OnlineSum) and its max accumulate as one pair (m, s): s holds
// the sum of exp(y - shift(m)) over the values seen, rescaled by exp(shift(m) - shift(m'))
// when the max grows to m'. Pairs merge the same way (in threads, across the block, across
// chunks), so the max and the sum that needs it come from one read of the row.
#include <algorithm>
#include <functional>
#include <optional>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_common.h"
#include "codegen/one_hot_sum.h"
#include "codegen/row_common.h"

namespace tessel::codegen {
namespace {

// The online pair whose sum is `r`, or -1.
int PairOf(const FusedKernel& k, const Node* r) {
  for (size_t p = 0; p < k.online_sums.size(); ++p) {
    if (k.online_sums[p].sum == r) return static_cast<int>(p);
  }
  return -1;
}

int AccumulatorOfNode(const std::vector<Accumulator>& accs, const Node* r) {
  for (size_t i = 0; i < accs.size(); ++i) {
    if (accs[i].reduction == r) return static_cast<int>(i);
  }
  return -1;
}

std::string Exp(DType t, const std::string& x) { return CudaScalarExpr(OpKind::kExp, t, {x}); }

// f32 terms exp(y - h) run as tessel_exp_shifted (see the prelude). f64 keeps exp.
std::string Term(DType t, const std::string& y, int p) {
  if (t == DType::kF32) return absl::StrCat("tessel_exp_shifted(", y, ", ph", p, ")");
  return Exp(t, absl::StrCat(y, " - ph", p));
}

// `shift<p>(m)` and `combine<p>(m, s, m2, s2)` as lambdas of the kernel, for pair p.
void DefinePairFunctions(CodeWriter& w, const KernelSource& ks, const RowLayout& l,
                         const OnlineSum& o, int p) {
  const DType t = o.max->dtype();
  const char* type = CudaComputeType(t);
  w.Line("auto shift", p, " = [&](", type, " m) -> ", type, " {");
  {
    CodeWriter::Scope scope(&w, "};");
    ExprEmitter e(&w, 1, ks);
    e.Bind(o.max, ReducedIndex(l, o.max->shape(), "row"), Value{"m", false});
    w.Line("return ", e.Get(o.shift, ReducedIndex(l, o.shift->shape(), "row")).At(), ";");
  }
  // A sum of nothing (0) stays 0: 0 * exp(inf) would be NaN.
  w.Line("auto combine", p, " = [&](", type, "& m, ", type, "& s, ", type, " m2, ", type, " s2) {");
  {
    CodeWriter::Scope scope(&w, "};");
    w.Line("const ", type, " m1 = tessel_max(m, m2), h1 = shift", p, "(m1);");
    w.Line("s = (s == 0 ? s : s * ", Exp(t, absl::StrCat("shift", p, "(m) - h1")),
           ") + (s2 == 0 ? s2 : s2 * ", Exp(t, absl::StrCat("shift", p, "(m2) - h1")), ");");
    w.Line("m = m1;");
  }
}

// Folds lane values `y` into pair p's running max pm<p> and sum `s`; ph<p> holds
// shift<p>(pm<p>). The lanes' max first, then at most one rescale, then independent terms:
// a rescale per element serializes the lanes (cross-entropy ran at 31% of copy so).
void AccumulateOnline(CodeWriter& w, const Accumulator& max, const std::string& s, const Value& y,
                      int lanes, const std::string& guard, int p) {
  const DType t = max.acc;
  const std::string m = absl::StrCat("pm", p), h = absl::StrCat("ph", p);
  const std::string if_guard = guard.empty() ? "" : absl::StrCat("if (", guard, ") ");
  w.Line("{");
  CodeWriter::Scope scope(&w, "}");
  w.Line(max.type(), " grown = ", m, ";");
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", lanes, "; ++k) ", if_guard, "grown = tessel_max(grown, ", y.At(),
         ");");
  {
    auto grows = w.Block("if (grown != ", m, ")");
    w.Line("const ", max.type(), " shifted = shift", p, "(grown);");
    w.Line("if (", s, " != 0) ", s, " *= ", Exp(t, absl::StrCat(h, " - shifted")), ";");
    w.Line(m, " = grown;");
    w.Line(h, " = shifted;");
  }
  // -inf adds nothing: exp(-inf - h) is 0 wherever the shift h is finite or +inf. While the
  // max is still -inf, every lane is, and the shift may be -inf too (-inf - -inf is NaN):
  // the step adds nothing then. (A guard a lane cost cross-entropy an instruction an element.)
  auto any = w.Block("if (", m, " != ", max.Identity(), ")");
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", lanes, "; ++k) ", if_guard, s, " += ", Term(t, y.At(), p), ";");
}

std::string PairReduce(const Accumulator& max, const Accumulator& sum, int p) {
  return absl::StrCat("tessel_block_reduce_pair(pm", p, ", ", sum.name, ", combine", p, ", ",
                      max.Identity(), ", scratch_pair_m, scratch_pair_s);");
}

// The first pair whose max is `max` (several sums may share one max): it stores the max.
int FirstPairOf(const FusedKernel& k, const Node* max) {
  for (size_t p = 0; p < k.online_sums.size(); ++p) {
    if (k.online_sums[p].max == max) return static_cast<int>(p);
  }
  return -1;
}

void DeclarePairScratch(CodeWriter& w, const FusedKernel& k) {
  if (k.online_sums.empty()) return;
  w.Line("__shared__ ", CudaComputeType(k.online_sums[0].max->dtype()),
         " scratch_pair_m[32], scratch_pair_s[32];");
}

constexpr int kThreads = 256;
// Vectors each thread loads per step. Cross-entropy over 4096 rows of 32000 bf16 classes
// (bench/labs/cross_entropy_lab.cu, H100): 4 (32 bf16 lanes) 5% faster than 2, 1 2% slower.
constexpr int kInFlight = 4;

// Each block's chunk of its row, reduced, into the workspace for stage 2.
// Accumulator i's workspace entry for a part (an expression).
using ChunkSlot = std::function<std::string(size_t, const std::string&)>;

void PublishChunks(CodeWriter& w, const FusedKernel& k, const std::vector<Accumulator>& accs,
                   const ChunkSlot& slot) {
  for (size_t i = 0; i < accs.size(); ++i) {
    const Accumulator& a = accs[i];
    const int p = PairOf(k, a.reduction);
    if (p < 0 && FirstPairOf(k, a.reduction) >= 0) continue;  // stored by its first pair
    w.Line("{");
    CodeWriter::Scope block(&w, "}");
    if (p < 0) {
      w.Line("const ", a.type(), " total = ", BlockReduce(a, a.name), ";");
      w.Line("if (threadIdx.x == 0) ", slot(i, "blockIdx.y"), " = total;");
      continue;
    }
    const Node* max = k.online_sums[p].max;
    const int im = AccumulatorOfNode(accs, max);
    w.Line(PairReduce(accs[im], a, p));
    auto first = w.Block("if (threadIdx.x == 0)");
    if (FirstPairOf(k, max) == p) w.Line(slot(im, "blockIdx.y"), " = pm", p, ";");
    w.Line(slot(i, "blockIdx.y"), " = ", a.name, ";");
  }
}

// The row's reductions, finished, and the values of the reduced space stored: from the
// threads' accumulators (`chunks` null: the block read the whole row), or from the chunks in
// the workspace (`chunks(i, part)` names accumulator i's entry of a part).
// `variable_length`: the row's length as an expression, where the kernel takes it (rows).
void EmitRowResults(CodeWriter& w, const KernelSource& ks, const FusedKernel& k, const RowLayout& l,
                    const std::vector<Accumulator>& accs, int64_t parts, const ChunkSlot* chunks,
                    const std::optional<std::string>& variable_length) {
  ExprEmitter e(&w, 1, ks);
  auto bind = [&](const Accumulator& a, const std::string& value) {
    const Node* r = a.reduction;
    const Value v = e.Define(std::string(OpName(r->op())), CudaComputeType(r->dtype()), false,
                             Finish(a, value, l.length, variable_length));
    e.Bind(r, ReducedIndex(l, r->shape(), "row"), v);
  };
  for (size_t i = 0; i < accs.size(); ++i) {
    const Accumulator& a = accs[i];
    const std::string& acc = a.name;
    const int p = PairOf(k, a.reduction);
    if (p < 0 && FirstPairOf(k, a.reduction) >= 0) continue;  // bound by its first pair
    if (chunks != nullptr) w.Line(a.type(), " ", acc, " = ", a.Identity(), ";");
    if (p < 0) {
      if (chunks != nullptr) {
        w.Line("for (int p = threadIdx.x; p < ", parts, "; p += ", kThreads, ") ", acc, " = ",
               a.Combine(acc, (*chunks)(i, "p")), ";");
      }
      bind(a, BlockReduce(a, a.name));
      continue;
    }
    const int im = AccumulatorOfNode(accs, k.online_sums[p].max);
    const Accumulator& max = accs[im];
    const std::string m = absl::StrCat("pm", p);
    if (chunks != nullptr) {
      w.Line(max.type(), " ", m, " = ", max.Identity(), ";");
      w.Line("for (int p = threadIdx.x; p < ", parts, "; p += ", kThreads, ") combine", p, "(", m,
             ", ", acc, ", ", (*chunks)(im, "p"), ", ", (*chunks)(i, "p"), ");");
    }
    w.Line(PairReduce(max, a, p));
    if (FirstPairOf(k, max.reduction) == p) bind(max, m);
    // Where the shift is -inf (shift = m, every value -inf), every term is exp(NaN).
    const char* nan = max.acc == DType::kF64 ? "__longlong_as_double(0x7ff8000000000000ll)"
                                             : "__int_as_float(0x7fc00000)";
    bind(a,
         absl::StrCat("(shift", p, "(", m, ") == ", max.Identity(), " ? ", nan, " : ", acc, ")"));
  }
  StoreReduced(w, e, ks, l, "row");
}

// A row's steps: kInFlight vectors a thread and step, loaded before any is used (a row
// streamed one 16-byte load per thread at a time left cross-entropy latency-bound); whole
// steps first, with no lane guards (a guard per lane costs a branch per element), then each
// thread's one partial step. What is the same along the row (a target class, a row's scale)
// is read once, before the loops: `w` takes it while the loops are written to `steps`; both
// in a scope of their own, so that the row's results after them name their values afresh.
void EmitSteps(CodeWriter& w, const FusedKernel& k, const RowLayout& l, const KernelSource& ks,
               const std::vector<Accumulator>& accs,
               const std::vector<std::optional<OneHotSum>>& picks, int vec) {
  const int lanes = vec * kInFlight;
  w.Line("{");
  CodeWriter::Scope steps_scope(&w, "}");
  ExprEmitter row_values(&w, lanes, ks);
  CodeWriter steps;
  auto accumulate = [&](const std::string& guard) {
    const IndexExpr idx = RowIndex(l, "row", "col(k)", vec, guard);
    ExprEmitter e(&steps, lanes, ks);
    e.HoistInvariantsTo(&row_values);
    for (size_t i = 0; i < accs.size(); ++i) {
      const Accumulator& a = accs[i];
      const int p = PairOf(k, a.reduction);
      if (p >= 0) {
        const Accumulator& max = accs[AccumulatorOfNode(accs, k.online_sums[p].max)];
        AccumulateOnline(steps, max, a.name, e.Get(&max.reduction->input(0), idx), lanes, guard, p);
      } else if (FirstPairOf(k, a.reduction) < 0 && !picks[i]) {
        // (a max of pairs runs in them; a one-hot sum after the steps)
        Accumulate(steps, a, e.Get(&a.reduction->input(0), idx), lanes, guard);
      }
    }
  };
  {
    auto loop = steps.Block("for (; c + ", (kInFlight - 1) * kThreads * vec + vec,
                            " <= end; c += ", kInFlight * kThreads * vec, ")");
    accumulate("");
  }
  {
    // A vector is in the row or past its end as a whole (vec divides the length and the
    // chunk): one test a vector, the same for its lanes.
    auto tail = steps.Block("if (c < end)");
    accumulate(vec == 1 ? "col(k) < end" : absl::StrCat("col(k / ", vec, " * ", vec, ") < end"));
  }
  w.Append(steps);
}

}  // namespace

bool StreamingTakesRows(const FusedKernel& k, const RowLayout& l, const DynamicRows& rows) {
  if (k.kind != KernelKind::kReduction || k.reduced_axes.empty() || k.reduced_axes[0] != 0 ||
      !l.trailing || !k.online_sums.empty()) {
    return false;  // (trailing with axis 0 reduced: every axis)
  }
  for (const Node* out : k.outputs) {
    if (out->shape() == l.space) return false;
  }
  const KernelSource probe = NewKernelSource(k);
  for (const Accumulator& a : Accumulators(k)) {
    const Node& in = a.reduction->input(0);
    if (!rows.Has(&in) || in.shape() != l.space || MatchOneHotSum(a, l, probe)) return false;
  }
  return true;
}

KernelSource Streaming(const FusedKernel& k, const RowLayout& l, KernelSource ks,
                       const DynamicRows* rows) {
  // With rows (StreamingTakesRows) the row is `rows` times the other axes: vectors that divide
  // those, chunks for the most rows the kernel serves, each chunk's length at run time.
  const RowsLength of_rows = RowsLengthOf(l);
  const int64_t per_row = of_rows.per_row;
  RowLayout shape = l;
  if (rows != nullptr) shape.length = per_row;
  const int vec = VectorWidthFor(k, shape);
  const int64_t most = rows != nullptr ? per_row * rows->max : l.length;
  const int64_t parts = std::clamp<int64_t>(most / (kThreads * vec * 16), 1, 1024);
  const std::optional<std::string> variable_length =
      rows != nullptr ? std::optional<std::string>("length") : std::nullopt;
  const std::string length = variable_length.value_or(absl::StrCat(l.length));
  const std::string chunk =
      rows != nullptr ? absl::StrCat("((length + ", parts - 1, ") / ", parts, " + ", vec - 1,
                                     ") / ", vec, " * ", vec)
                      : absl::StrCat(((l.length + parts - 1) / parts + vec - 1) / vec * vec);
  auto define_length = [&](CodeWriter& w) {
    if (rows == nullptr) return;
    w.Line("const index_t length = ", of_rows.expression, ";");
  };
  ks.takes_rows = rows != nullptr;
  const std::vector<Accumulator> accs = Accumulators(k);
  const int64_t slots = static_cast<int64_t>(accs.size()) * l.rows * parts;
  const bool wide_slots =
      std::any_of(accs.begin(), accs.end(), [](const Accumulator& a) { return a.wide(); });
  if (parts > 1) ks.workspace_bytes = slots * (wide_slots ? 8 : 4);
  ks.schedule = parts > 1 ? absl::StrCat("rows streamed in ", parts, " chunks, then combined")
                          : "a block per row, streamed";
  std::vector<std::optional<OneHotSum>> picks;  // accumulators summed at their target
  for (const Accumulator& a : accs) picks.push_back(MatchOneHotSum(a, l, ks));
  if (std::any_of(picks.begin(), picks.end(), [](const auto& m) { return m.has_value(); })) {
    absl::StrAppend(&ks.schedule, "; a one-hot sum read at its target");
  }
  const ChunkSlot slot = [&](size_t i, const std::string& part) {
    return WorkspaceEntry(
        accs[i], absl::StrCat("(", i, " * ", l.rows, " + row) * ", parts, " + ", part), wide_slots);
  };
  CodeWriter w;
  BeginSource(w, k, rows);
  {
    auto body =
        KernelBlock(w, absl::StrCat(kThreads), absl::StrCat(kNamePlaceholder, "_stage1"), ks);
    if (rows != nullptr) {
      w.Line("// one row of rows x ", per_row, " values, in ", parts, " chunks");
    } else {
      w.Line("// ", l.rows, " rows of ", length, ", each in ", parts, " chunks of ", chunk);
    }
    DeclareScratch(w, accs);
    DeclarePairScratch(w, k);
    w.Line("const index_t row = blockIdx.x;");
    define_length(w);
    if (rows != nullptr) w.Line("const index_t chunk = ", chunk, ";");
    const std::string chunk_name = rows != nullptr ? "chunk" : chunk;
    w.Line("const index_t begin = (index_t)blockIdx.y * ", chunk_name, ";");
    w.Line("const index_t end = min(begin + ", chunk_name, ", (index_t)", length, ");");
    for (const Accumulator& a : accs) {
      const bool pair_max = PairOf(k, a.reduction) < 0 && FirstPairOf(k, a.reduction) >= 0;
      if (!pair_max) w.Line(a.type(), " ", a.name, " = ", a.Identity(), ";");
    }
    for (size_t p = 0; p < k.online_sums.size(); ++p) {
      const OnlineSum& o = k.online_sums[p];
      DefinePairFunctions(w, ks, l, o, static_cast<int>(p));
      const Accumulator& max = accs[AccumulatorOfNode(accs, o.max)];
      w.Line(max.type(), " pm", p, " = ", max.Identity(), ", ph", p, " = shift", p, "(pm", p, ");");
    }
    w.Line("index_t c = begin + (index_t)threadIdx.x * ", vec, ";");
    w.Line("auto col = [&](int k) -> index_t { return c + (k / ", vec, ") * ", kThreads * vec,
           " + k % ", vec, "; };");
    EmitSteps(w, k, l, ks, accs, picks, vec);
    for (size_t i = 0; i < accs.size(); ++i) {
      if (picks[i]) EmitOneHotSum(w, ks, l, accs[i], *picks[i]);
    }
    if (parts == 1) {  // the block holds whole rows: finish them here, no second launch
      EmitRowResults(w, ks, k, l, accs, 1, nullptr, variable_length);
    } else {
      PublishChunks(w, k, accs, slot);
    }
  }
  if (parts > 1) {
    w.Blank();
    auto body =
        KernelBlock(w, absl::StrCat(kThreads), absl::StrCat(kNamePlaceholder, "_stage2"), ks);
    DeclareScratch(w, accs);
    DeclarePairScratch(w, k);
    w.Line("const index_t row = blockIdx.x;");
    define_length(w);
    for (size_t p = 0; p < k.online_sums.size(); ++p) {
      DefinePairFunctions(w, ks, l, k.online_sums[p], static_cast<int>(p));
    }
    EmitRowResults(w, ks, k, l, accs, parts, &slot, variable_length);
  }
  Launch stage1, stage2;
  stage1.entry = absl::StrCat(kNamePlaceholder, "_stage1");
  stage1.grid = {l.rows, parts, 1};
  stage2.entry = absl::StrCat(kNamePlaceholder, "_stage2");
  stage2.grid = {l.rows, 1, 1};
  stage1.block = stage2.block = kThreads;
  ks.launches = {stage1};
  if (parts > 1) ks.launches.push_back(stage2);
  FinishSource(k, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
