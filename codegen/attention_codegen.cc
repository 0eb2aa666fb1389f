// Attention (fusion/attention.h) on the device library's tessel_attention_sm90 (wgmma, sm_90a)
// or tessel_attention_sm80 (mma.sync): the generator writes the configuration, f (the work
// between the scores and the softmax, evaluated on each score tile in registers) and the
// output's store; both kernels hand the callbacks the same fragment layout. q, k and v are
// read through their views (permuted heads, column slices) at the views' own steps. Extents
// are in the source.
#include <algorithm>
#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/attention_band.h"
#include "codegen/attention_operands.h"
#include "codegen/attention_schedule.h"
#include "codegen/expr_emitter.h"
#include "codegen/gemm_common.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

// tessel_attention_combine's block: kTesselCombineWarps warps (attention_split.cuh).
constexpr int kCombineThreads = 512;

// The row and batch entry (names) of folded row `row`, defined in the current scope.
std::pair<std::string, std::string> Unfold(CodeWriter& w, const Folding& f,
                                           const std::string& row) {
  if (f.factor == 1) return {"batch", row};
  w.Line("const index_t batch_r = batch * ", f.factor, " + ", row, " / ", f.sq, ";");
  w.Line("const int row_r = ", row, " % ", f.sq, ";");
  return {"batch_r", "row_r"};
}

// The position (row, col) of `shape` for batch entry `batch` (the flattened batch axes).
IndexExpr AtRowColumn(const Shape& shape, const std::string& batch, const std::string& row,
                      const std::string& col) {
  std::vector<std::string> dims = FromLinear(BatchOf(shape), batch, false, 1).dims;
  std::vector<bool> lane(dims.size(), false);
  dims.push_back(row);
  dims.push_back(col);
  lane.push_back(false);
  lane.push_back(true);
  return FromDims(shape, dims, lane);
}

// Whether `band` holds at run time: its fill is -inf and its mask is the comparison.
std::string BandHolds(const KernelSource& ks, const KeyBand& band) {
  std::string when = absl::StrCat("(float)", ScalarName(ks, band.fill), " == TESSEL_NEG_INF");
  for (const KeyBand::Condition& c : band.conditions) {
    absl::StrAppend(&when, " && ", ScalarName(ks, c.a),
                    c.equal ? " == " : " != ", c.b == nullptr ? "0" : ScalarName(ks, c.b));
  }
  return when;
}

// The band's edge for row `row`: its first masked key (upper) or last (lower), row + the
// diagonal, or the diagonal alone where the band is the same for every row.
std::string BandEdge(const KernelSource& ks, const KeyBand& band, const std::string& row) {
  const std::string diagonal =
      absl::StrCat("((long long)", ScalarName(ks, band.diagonal), " + ", band.adjust, ")");
  return band.per_row ? absl::StrCat(row, " + ", diagonal) : diagonal;
}

// Folded rows row_first..row_last as the rows of their heads: all of them where they span two.
void EmitUnfoldRange(CodeWriter& w, const Folding& f, const std::string& first,
                     const std::string& last) {
  if (f.factor == 1) return;
  w.Line("if (", first, " / ", f.sq, " != ", last, " / ", f.sq, ") ", first, " = 0, ", last, " = ",
         f.sq - 1, ";");
  w.Line("else ", first, " %= ", f.sq, ", ", last, " %= ", f.sq, ";");
}

// The keys rows row_first..row_last may see (tessel_attention_key_tiles): each band of f's
// masks (codegen/attention_band.h) narrows [0, S_K) where its fill is -inf and its mask is
// the comparison at run time.
void EmitKeyRange(CodeWriter& w, const KernelSource& ks, const std::vector<KeyBand>& bands,
                  const Folding& f, int64_t sk) {
  w.Line("[&](index_t batch, int row_first, int row_last, int& key_begin, int& key_end) {");
  CodeWriter::Scope lambda(&w, "},");
  if (!bands.empty()) EmitUnfoldRange(w, f, "row_first", "row_last");
  for (const KeyBand& band : bands) {
    const std::string when = BandHolds(ks, band);
    w.Line("// -inf at keys ", band.upper ? ">=" : "<=", band.per_row ? " row + " : " ",
           ScalarName(ks, band.diagonal), " + ", band.adjust);
    if (band.upper) {
      w.Line("if (", when, ") key_end = (int)max(0ll, min((long long)key_end, ",
             BandEdge(ks, band, "row_last"), "));");
    } else {
      w.Line("if (", when, ") key_begin = (int)min(", sk, "ll, max((long long)key_begin, ",
             BandEdge(ks, band, "row_first"), " + 1));");
    }
  }
}

// Whether every band holds at run time (BandHolds).
std::string BandsHold(const KernelSource& ks, const std::vector<KeyBand>& bands) {
  std::vector<std::string> terms;
  for (const KeyBand& band : bands) terms.push_back(absl::StrCat("(", BandHolds(ks, band), ")"));
  return absl::StrJoin(terms, " && ");
}

// Whether keys key0 + first .. key0 + first + width - 1 lie inside every band for the warp's
// rows warp_first .. warp_last, the bands holding: there f is its unmasked part alone.
std::string InsideBands(const KernelSource& ks, const std::vector<KeyBand>& bands, int first,
                        int width) {
  std::vector<std::string> terms;
  for (const KeyBand& band : bands) {
    terms.push_back(
        band.upper
            ? absl::StrCat("key0 + ", first + width - 1, " < ", BandEdge(ks, band, "warp_first"))
            : absl::StrCat("key0 + ", first, " > ", BandEdge(ks, band, "warp_last")));
  }
  return absl::StrJoin(terms, " && ");
}

// How EmitScorePart writes f: as recorded (masks evaluated per element), or with every band
// holding: f's unmasked part, then -inf at the keys the bands mask unless `inside`.
enum class ScoreForm { kRecorded, kHeld };

// -inf at the keys of row `row` (its head's row) that a band masks, the bands holding; each
// band's edge clamped to [-1, S_K] once a row, so that the test is one int compare a key.
void EmitBandMask(CodeWriter& w, const KernelSource& ks, const std::vector<KeyBand>& bands,
                  const std::string& row, const std::string& key, const std::string& at, int lanes,
                  int64_t sk) {
  w.Line("if (!inside) {");
  CodeWriter::Scope mask(&w, "}");
  std::vector<std::string> masked;
  for (size_t i = 0; i < bands.size(); ++i) {
    const std::string edge = absl::StrCat("edge", i);
    w.Line("const int ", edge, " = (int)max(-1ll, min(", sk, "ll, ", BandEdge(ks, bands[i], row),
           "));");
    masked.push_back(absl::StrCat(key, bands[i].upper ? " >= " : " <= ", edge));
  }
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", lanes, "; ++k) if (", absl::StrJoin(masked, " || "), ") ", at,
         " = TESSEL_NEG_INF;");
}

// One row half's f on keys first .. first + width - 1 of the tile (width / 4 lanes a thread).
void EmitScorePart(CodeWriter& w, const KernelSource& ks, const FusedKernel& kernel,
                   const std::vector<KeyBand>& bands, const Folding& f, int first, int width, int h,
                   ScoreForm form) {
  const int lanes = width / 4;
  const Shape& shape = kernel.scores->shape();
  const int64_t sq = shape[shape.rank() - 2], sk = shape[shape.rank() - 1];
  w.Line("{  // row g", h == 0 ? "" : " + 8", ", keys ", first, "..");
  CodeWriter::Scope half(&w, "}");  // each row's values are its own
  const std::string row = absl::StrCat("(row0 + g + ", 8 * h, ")");
  const std::string key = absl::StrCat("(key0 + ", first, " + 8 * (k / 2) + 2 * t + k % 2)");
  const std::string at = absl::StrCat("s[", first / 8, " + k / 2][", 2 * h, " + k % 2]");
  const auto [batch, head_row] = Unfold(w, f, row);
  IndexExpr idx = AtRowColumn(shape, batch, head_row, key);
  idx.thread_guard = absl::StrCat(row, " < ", f.factor * sq);
  idx.lane_guard = absl::StrCat(key, " < ", sk);
  ExprEmitter e(&w, lanes, ks);
  const DType t = kernel.scores->dtype();
  if (IsHalfFloat(t)) {
    // The scores rounded to their 16-bit type as pairs (one conversion for two), so that f's
    // 16-bit arithmetic runs two lanes an instruction: the softmax's exponentials share the
    // issue slots.
    e.PairHalves();
    w.Line("unsigned scores_w[", lanes / 2, "];");
    w.Line("#pragma unroll");
    w.Line("for (int p = 0; p < ", lanes / 2,
           "; ++p) scores_w[p] = ", t == DType::kBF16 ? "tessel_pack_bf16(" : "tessel_pack_f16(",
           "s[", first / 8, " + p][", 2 * h, "], s[", first / 8, " + p][", 2 * h + 1, "]);");
    e.Bind(kernel.scores, idx, Value{"scores_w", true, t});
  } else {
    e.Bind(kernel.scores, idx, e.Define("scores", "float", true, at));
  }
  if (form == ScoreForm::kHeld) {
    // Innermost first: an outer band's kept input holds the inner where.
    for (auto band = bands.rbegin(); band != bands.rend(); ++band) {
      e.Bind(band->where, idx, e.Get(band->kept, idx));
    }
  }
  const Value logits = e.Get(kernel.logits, idx);
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", lanes, "; ++k) ", at, " = ", logits.At(), ";");
  // Where every band holds, f is -inf where any masks and its unmasked part elsewhere
  // (attention_band.h: only casts lie between the wheres, and -inf casts to -inf).
  if (form == ScoreForm::kHeld) EmitBandMask(w, ks, bands, head_row, key, at, lanes, sk);
}

// f on a warp's score tile, at most 64 keys at a time (f's temporaries stay few registers):
// rows g and g + 8 (h), each width / 4 lanes k at key first + 8 (k / 2) + 2 t + k % 2 of
// s[first / 8 + k / 2][2 h + k % 2]; keys past S_K and rows past S_Q read nothing. Where masks
// make bands that hold at run time, f is computed without them, and -inf replaces the keys
// they mask only where the keys cross a band's edge for some row of the warp (the diagonal
// tiles of a causal mask): one compare a key there, none elsewhere. Otherwise each element
// evaluates the masks as recorded.
void EmitScore(CodeWriter& w, const KernelSource& ks, const FusedKernel& kernel,
               const std::vector<KeyBand>& bands, const Folding& f, int key_tile) {
  w.Line("[&](index_t batch, float (&s)[", key_tile / 8, "][4], int row0, int key0) {");
  CodeWriter::Scope lambda(&w, "},");
  if (!bands.empty()) {
    w.Line("const bool held = ", BandsHold(ks, bands), ";");
    w.Line("int warp_first = row0, warp_last = row0 + 15;");
    EmitUnfoldRange(w, f, "warp_first", "warp_last");
  }
  for (int first = 0; first < key_tile; first += 64) {
    const int width = std::min(64, key_tile - first);
    auto both_rows = [&](ScoreForm form) {
      for (int h = 0; h < 2; ++h) EmitScorePart(w, ks, kernel, bands, f, first, width, h, form);
    };
    if (bands.empty()) {
      both_rows(ScoreForm::kRecorded);
      continue;
    }
    // Per part, as ptxas keeps the recorded masks' temporaries without spills.
    w.Line("if (held) {");
    {
      CodeWriter::Scope held(&w, "} else {");
      w.Line("const bool inside = ", InsideBands(ks, bands, first, width), ";");
      both_rows(ScoreForm::kHeld);
    }
    CodeWriter::Scope recorded(&w, "}");
    both_rows(ScoreForm::kRecorded);
  }
}

// The normalized output o[j][2 h + e] at row row0 + g + 8 h, column 8 j + 2 t + e, through
// the store (and any output the kernel writes there).
void EmitOutput(CodeWriter& w, const KernelSource& ks, const FusedKernel& kernel, int64_t d,
                int64_t cols, const Folding& f, int query_tile, bool counted_rows = false) {
  const Node* out = kernel.matmul;
  const Shape& shape = out->shape();
  GemmProblem p;  // the output matmul as the GEMM epilogue sees it (its operands unread)
  p.matmul = out;
  p.batch = BatchOf(shape);
  p.m = shape[shape.rank() - 2];
  p.m_expr = absl::StrCat(p.m);
  p.n = cols;
  w.Line("[&](index_t batch, float (&o)[", d / 8, "][4], int row0",
         counted_rows ? ", int rows" : "", ") {");
  CodeWriter::Scope lambda(&w, "});");
  for (int h = 0; h < 2; ++h) {
    w.Line("do {  // row g", h == 0 ? "" : " + 8");
    CodeWriter::Scope half(&w, "} while (false);");
    if (counted_rows) {
      w.Line("if (g", h == 0 ? "" : " + 8", " >= rows) continue;  // not merged here");
    }
    const std::string row = absl::StrCat("(row0 + g + ", 8 * h, ")");
    if (f.factor > 1) {  // folded rows past the last head's are no rows
      w.Line("if (", row, " >= ", f.factor * f.sq, ") continue;");
    }
    const auto [batch, head_row] = Unfold(w, f, row);
    EpilogueSite site(static_cast<int>(cols / 4), batch, head_row, "2 * t");  // cols of d
    site.matmul_value = absl::StrCat("o[k / 2][", 2 * h, " + k % 2]");
    site.lane_column = "8 * (k / 2) + k % 2";
    site.run = 2;
    site.rows_inside = f.factor > 1 || p.m % query_tile == 0;
    site.cols_inside = true;
    site.preload_inputs = false;  // q, k, v and f's inputs are the kernel's other inputs
    EmitGemmEpilogue(w, ks, p, site);
  }
}

}  // namespace

KernelSource GenerateAttention(const FusedKernel& kernel, const Target& target) {
  KernelSource ks = NewKernelSource(kernel);
  const Node* scores = kernel.scores;
  const AttentionOperand q = ReadOperand(kernel, scores->input(0), false);
  const AttentionOperand k = ReadOperand(kernel, scores->input(1), true);
  const AttentionOperand v = ReadOperand(kernel, kernel.matmul->input(1), false);
  const Shape& s = scores->shape();
  const int64_t sq = s[s.rank() - 2], sk = s[s.rank() - 1];
  const int64_t d = HeadDimension(q), cols = q.node->shape()[q.d_axis];
  const Shape batch = BatchOf(kernel.matmul->shape());
  const bool f16 = q.layout.base->dtype() == DType::kF16;
  const std::vector<KeyBand> bands = FindKeyBands(kernel.logits, sq, sk);
  const AttentionSchedule plan = ChooseSchedule(kernel, target, q, k, v, bands);
  const bool hopper = plan.hopper;
  const AttentionTiles tiles = plan.tiles;
  const Folding fold = plan.fold;
  const int64_t query_tiles = plan.query_tiles, entries = plan.entries, splits = plan.splits;
  const int64_t rows = fold.factor * sq, smem = plan.smem;
  // A split's shares (o, then m and l a row), then a counter for each 64 rows of an entry
  // (tessel_attention_split_layout).
  if (splits > 1) {
    ks.workspace_bytes = entries * (splits * rows * (d + 2) * 4 + CeilDiv(rows, 64) * 8);
  }
  if (plan.tickets) ks.workspace_bytes = 8;  // the ticket counter (tessel_tagged_count)
  if (hopper) {
    ks.tensor_maps.push_back(OperandMap(ks, q, fold, fold.axes, tiles.query));
    for (const AttentionOperand* o : {&k, &v})
      ks.tensor_maps.push_back(OperandMap(ks, *o, fold, 0, tiles.key));
  }
  ks.schedule = DescribeSchedule(plan, bands, d, cols);
  // A producer warpgroup and a consumer warpgroup per 64 query rows (attention_sm90.cuh).
  const int threads = hopper ? 128 * (1 + tiles.query / 64) : 128;
  CodeWriter w;
  BeginSource(w, kernel);
  w.Line("#include \"tessel/attention_sm", hopper ? 90 : 80, ".cuh\"");
  w.Blank();
  w.Line("// softmax(f(q k^T)) v: q [", sq, " x ", d, "], k and v [", sk, " x ", d, "], batch of ",
         batch.numel());
  if (fold.factor > 1) {
    w.Line("// The ", fold.factor, " query heads of each K/V head as one matrix of ",
           fold.factor * sq, " rows");
  }
  const std::string first = fold.factor > 1 ? absl::StrCat("(batch * ", fold.factor, ")") : "batch";
  {
    w.Line("struct attention_config {");
    CodeWriter::Scope config(&w, "};");
    w.Line("static constexpr int D = ", d, ", SQ = ", rows, ", SK = ", sk, ", BATCH = ", entries,
           ", SPLITS = ", splits, ", SMEM = ", smem, ";");
    if (hopper) {
      w.Line("static constexpr int BQ = ", tiles.query, ", BK = ", tiles.key,
             ", GROUP = ", plan.group, ";");
      w.Line("static constexpr bool TICKETS = ", plan.tickets ? "true" : "false", ";");
      w.Line("static constexpr bool MERGE_LAST = ", plan.merge_last ? "true" : "false", ";");
      if (splits > 1 && !plan.merge_last) {
        w.Line("static constexpr int COMBINE_ROWS = ", plan.combine_rows, ";");
      }
    }
    w.Line("static constexpr bool F16 = ", f16 ? "true" : "false", ";");
    w.Line("typedef ", f16 ? "f16_t" : "bf16_t", " T;");
    if (cols != d) {
      w.Line("static constexpr int COLS = ", cols, ";  // of D: the rest are zeros");
    } else {
      w.Line("static constexpr int COLS = D;");
    }
    const std::pair<std::string, const AttentionOperand*> operands[] = {
        {"q", &q}, {"k", &k}, {"v", &v}};
    for (const auto& [name, o] : operands) {
      const int fold_axes = o == &q ? fold.axes : 0;
      if (hopper) {
        w.Line("static __device__ tessel_attention_coords ", name, "_coords(int batch) { return ",
               MapCoordinates(*o, fold_axes, batch, first), "; }");
        continue;
      }
      w.Line("static __device__ long long ", name, "_offset(int batch) { return ",
             ElementOffset(*o, batch, first), "; }");
      w.Line("static constexpr long long ", absl::AsciiStrToUpper(name),
             "_ROW = ", RowStep(*o, fold_axes), ";");
    }
  }
  w.Blank();
  {
    auto body = KernelBlock(w, absl::StrCat(threads, hopper ? ", 1" : ""), kNamePlaceholder, ks, 1,
                            hopper ? GridDependency::kInLibrary : GridDependency::kAtEntry);
    w.Line("const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;");
    if (hopper) {
      w.Line("tessel_attention_sm90<attention_config>(tmap0, tmap1, tmap2, ",
             ks.workspace_bytes > 0 ? "ws" : "nullptr", ",");
    } else {
      w.Line("tessel_attention_sm80<attention_config>(", PointerName(ks, q.layout.base), ", ",
             PointerName(ks, k.layout.base), ", ", PointerName(ks, v.layout.base), ",");
    }
    EmitKeyRange(w, ks, bands, fold, sk);
    EmitScore(w, ks, kernel, bands, fold, tiles.key);
    EmitOutput(w, ks, kernel, d, cols, fold, tiles.query);
  }
  const std::string combine = absl::StrCat(kNamePlaceholder, "_combine");
  const bool combine_launch = splits > 1 && !plan.merge_last;
  if (combine_launch) {
    w.Blank();
    auto body = KernelBlock(w, absl::StrCat(kCombineThreads), combine, ks);
    w.Line("// The ", splits, " shares of the keys of ", plan.combine_rows,
           plan.combine_rows == 1 ? " row" : " rows", ", merged in order");
    w.Line("const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;");
    w.Line("tessel_attention_combine<attention_config>(ws,");
    EmitOutput(w, ks, kernel, d, cols, fold, 64, true);
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.grid = hopper ? std::array<int64_t, 3>{query_tiles * entries * splits, 1, 1}
                       : std::array<int64_t, 3>{query_tiles, entries, 1};
  launch.block = threads;
  // The Hopper kernel walks the work tiles with one block an SM (its shared memory allows no
  // more), so that the next tile's loads overlap this one's last products and stores.
  if (hopper) launch.persistent_per_sm = 1;
  launch.shared_bytes = smem;
  ks.launches.push_back(launch);
  if (combine_launch) {
    Launch merge;
    merge.entry = combine;
    merge.grid = {CeilDiv(rows, plan.combine_rows) * entries, 1, 1};
    merge.block = kCombineThreads;
    ks.launches.push_back(merge);
  }
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
