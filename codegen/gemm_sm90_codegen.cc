// The Hopper GEMM (sm_90a): the generator writes the tile configuration, the epilogue and
// the kernel; the mainloop is the device library's tessel_gemm_sm90 (codegen/device/).
// Operands arrive by TMA, so each needs rows of a multiple of 16 bytes: other rows are staged
// first (gemm_staging.h) and the maps read the padded copies. f32 operands under TF32 must be
// K-major, the only layout wgmma reads 32-bit operands from shared memory in: B as stored is
// read into registers on tiles of 128 rows (B_REGS), other MN-major ones are staged
// transposed; under kHigh both are staged as TF32 parts and remainders.
#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/gemm_common.h"
#include "codegen/gemm_k_slices.h"
#include "codegen/gemm_sm90_walk.h"
#include "codegen/gemm_staging.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "core/error.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

constexpr int kSharedLimit = 227 * 1024;  // per block on sm_90
constexpr int kSms = 132;                 // H100 SXM; only shapes the tile choice

// The consumers' staging tiles (one each): the tile's matmul values in 16 bits (both
// products' for a dual GEMM). TF32 kernels have none (the consumers run the epilogue from
// their accumulators).
int StagingBytes(const GemmTile& tile, bool tf32, bool dual) {
  return tf32 ? 0 : tile.bm * tile.bn * 2 * (dual ? 2 : 1);
}

// A stage of the ring: A's block and B's (both B's for a dual GEMM), `parts` copies of each.
int StageBytes(const GemmTile& tile, int parts, bool dual) {
  return (tile.bm + tile.bn * (dual ? 2 : 1)) * tile.bk * 2 * parts;
}

// As many stages as shared memory holds beside the staging tiles, at most 16, and at most 8
// on 16-bit tiles of 64 rows or fewer (few rows: streaming B is the whole cost, and more
// stages in flight measured slower). H200, forty-first session (bench/RESULTS.md): q/k/v at
// M = 64, its kernel alone, 15.4-15.8 us on 13 stages against 14.8-15.1 on 8; in
// gemm_group_bench at M = 16 (16 stages before) q/k/v 17.2 -> 16.9 us, SwiGLU's gate and up
// 49.7 -> 49.2. (TF32 tiles not measured.)
int StagesThatFit(const GemmTile& tile, bool tf32, int parts, bool dual) {
  const int most = tile.bm <= 64 && !tf32 ? 8 : 16;
  return std::min<int>(
      most, (kSharedLimit - 2048 - StagingBytes(tile, tf32, dual)) / StageBytes(tile, parts, dual));
}

// A consumer's staging tile (gemm_sm90_output.cuh's tessel_gemm_sm90_staging_shape): 64 rows
// x BN, or with swapped operands the tile's BM rows x the consumer's 64 columns.
int StagingRows(const GemmTile& tile) { return tile.swap ? tile.bm : 64; }
int StagingCols(const GemmTile& tile) { return tile.swap ? 64 : tile.bn; }

// The operand's buffer as a 3-D TMA map: its contiguous axis, the other matrix axis, batch.
// `box_rows`: the box's extent along the second axis. `parts`: copies per matrix (a TF32
// part and remainder for three products), consecutive along the third axis.
TensorMapSpec OperandMap(const KernelSource& ks, const GemmOperand& o, int box_rows, bool rows_dim1,
                         int parts) {
  TensorMapSpec map;
  map.rows_dim1 = rows_dim1;
  // A staged operand: its copy in the workspace parameter, after the inputs and outputs.
  map.arg =
      o.staged ? static_cast<int>(ks.inputs.size() + ks.outputs.size()) : InputIndex(ks, o.buffer);
  map.offset = o.workspace_offset;
  map.dtype = o.buffer->dtype();
  const int64_t elem = DTypeSize(map.dtype);
  map.dims = {o.inner, o.rows, parts * std::max<int64_t>(o.batch.numel(), 1)};
  map.strides = {o.pitch * elem, o.pitch * o.rows * elem};
  map.box = {static_cast<int>(128 / elem), box_rows};  // rows of 128 bytes: the swizzle's
  return map;
}

// TF32: each consumer's accumulators through the epilogue, pairs of columns from registers
// (the fragment layout tessel_gemm_sm90 documents); with B read into registers (`b_regs`)
// the accumulators hold the block transposed, one output each.
void EmitConsumerEpilogue(CodeWriter& w, const KernelSource& ks, const GemmProblem& p,
                          const GemmTile& tile, bool b_regs) {
  w.Line("tessel_gemm_sm90<gemm_config>(a_map, b_map, tessel_gemm_sm90_no_store{}, [&](const ",
         "float (&acc)[", tile.bn / 2, "], int part, int batch, int row0, int col0) {");
  CodeWriter::Scope epilogue(&w, absl::StrCat("}, ", p.m_expr, ");"));
  w.Line("const int t = threadIdx.x % 128;");
  EpilogueSite site(b_regs ? 1 : 2, "batch", "row", "col");
  site.rows_inside = !p.rows_argument && p.m % tile.bm == 0;
  site.cols_inside = p.n % tile.bn == 0;
  if (b_regs) {
    w.Line(
        "const int row_base = row0 + 2 * (t % 4), col_base = col0 + 16 * (t / 32) + (t % 32) / 4;");
    const int block = tile.bm / 2;  // accumulators of 64 columns x BM rows
    w.Line("// acc[", block, " j + e]: 64 columns x ", tile.bm, " rows, transposed.");
    w.Line("#pragma unroll");
    auto each = w.Block(absl::StrCat("for (int i = 0; i < ", tile.bn / 2, "; ++i)"));
    w.Line("const int e = i % ", block, ";");
    w.Line("const int row = row_base + 8 * (e >> 2) + (e & 1), ", "col = col_base + 64 * (i / ",
           block, ") + 8 * ((e >> 1) & 1);");
    site.matmul_value = "acc[i]";
    site.lane_column = "0";
    EmitGemmEpilogue(w, ks, p, site);
    return;
  }
  w.Line(
      "const int row_base = row0 + 16 * (t / 32) + (t % 32) / 4, col_base = col0 + 2 * (t % 4);");
  w.Line("// Register pair q holds columns (col, col + 1) of one row.");
  w.Line("#pragma unroll");
  auto pairs = w.Block(absl::StrCat("for (int q = 0; q < ", tile.bn / 4, "; ++q)"));
  w.Line("const int row = row_base + 8 * (q % 2), col = col_base + 8 * (q / 2);");
  site.matmul_value = "acc[2 * q + k]";
  EmitGemmEpilogue(w, ks, p, site);
}

// The epilogue warps' lambda: each part's outputs from the matmul's 16-bit values (and a
// dual GEMM's second matmul, `partner`, from its own).
void EmitWarpEpilogues(CodeWriter& w, const KernelSource& ks, const std::vector<GemmProblem>& parts,
                       const Node* partner, const GemmTile& tile, bool strided,
                       const std::string& m_arg) {
  const GemmProblem& p = parts[0];
  const bool dual = partner != nullptr;
  const int lanes = StagingCols(tile) / 8;  // a staging tile's row
  w.Line("// The epilogue warps: outputs (row, col + ", strided ? "8 k" : "64 (k / 8) + k % 8",
         "), k < ", lanes, ", from the matmul's 16-bit values in pairs, mm[k / 2]",
         dual ? " (the second matmul's: mm2)." : ".");
  w.Line("tessel_gemm_sm90<gemm_config>(a_map, b_map, tessel_gemm_sm90_no_store{}, [&](const ",
         "unsigned (&mm)[", lanes / 2, "], ",
         dual ? absl::StrCat("const unsigned (&mm2)[", lanes / 2, "], ") : "",
         "int part, int batch, int row, int col) {");
  CodeWriter::Scope epilogue(&w, absl::StrCat("}, ", m_arg, ");"));
  const bool siblings = parts.size() > 1;
  std::optional<CodeWriter::Scope> cases;
  if (siblings) {
    w.Line("switch (part) {");
    cases.emplace(&w, "}");
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    std::optional<CodeWriter::Scope> one;
    if (siblings) {
      w.Line("case ", i, ": {");
      one.emplace(&w, "} break;");
    }
    EpilogueSite site(lanes, "batch", "row", "col");
    site.matmul_words = "mm";
    site.partner = partner;
    site.partner_words = "mm2";
    site.rows_inside = !p.rows_argument && parts[i].m % tile.bm == 0;
    site.cols_inside = parts[i].n % tile.bn == 0;
    site.lane_column = strided ? "8 * k" : "k % 8 + 64 * (k / 8)";
    site.run = strided ? 1 : 8;
    EmitGemmEpilogue(w, ks, parts[i], site);
  }
}

// TF32 with B as stored ([k, n], MN-major) reads B into registers and multiplies transposed
// (gemm_sm90.cuh's B_REGS) where the tile has 128 rows and 128 or 256 columns, or 64 rows: no
// transposed copy of B first (4096^3: 45 us of 401 under Nsight Compute). (Before staging is
// planned: the tile a single TF32 product gets does not depend on it.)
bool ReadsBIntoRegisters(const std::vector<GemmProblem>& parts) {
  const GemmProblem& p = parts[0];
  if (p.a.buffer->dtype() != DType::kF32 || parts.size() != 1 || p.split_tf32 || p.b.transposed) {
    return false;
  }
  const GemmTile tile = ChooseGemmTile(p.m, p.n, p.batch.numel(), true);
  return (tile.bm == 128 && tile.bn >= 128) || tile.bm == 64;
}

}  // namespace

GemmTile ChooseGemmTile(const std::vector<GemmExtent>& outputs, int64_t batch, bool tf32, int parts,
                        bool dual, int64_t least_rows, bool a_box_moves) {
  GemmTile tile;
  // Few rows: one consumer warpgroup, and stages half the size, so that more of B is in flight
  // where streaming B is the whole cost. At most 64 rows; on a kernel for fixed rows whose
  // last A box moves, fewer than 128: from 65 rows that takes two tile rows, the second's A
  // box read from up to 56 rows above it (tessel_gemm_sm90_a_shift), where one tile of 128
  // rows would fill the rows past m out of bounds, slowly (H200, forty-third session: 65 to
  // 127 x 4096 x 4096, weight not in L2, 1.65-2.20 TB/s of weight on a 128-row tile,
  // 2.44-2.51 on two of 64; 64 rows 2.54). A kernel that takes its rows (`least_rows` > 0)
  // keeps the bucket 64..127 on 64-row tiles by its fewest rows, with K cut at run time
  // (ChooseWalk), and `a_box_moves` false: measured the same way, 2.26-2.29 TB/s at 65-127
  // rows (1.47-2.29 before its A boxes moved in bounds). (fusion/gemm_groups.cc's launch
  // estimate keeps nominal tiles.)
  int64_t most_rows = 0, narrowest = outputs[0].n;
  for (const GemmExtent& o : outputs) {
    most_rows = std::max(most_rows, o.m);
    narrowest = std::min(narrowest, o.n);
  }
  const int64_t rows = least_rows > 0 ? least_rows : most_rows;
  if (rows <= 64 || (rows < 128 && a_box_moves)) tile.bm = 64;
  // The widest tile that still gives every SM a tile and is not more than twice as wide as
  // the narrowest output (sibling GEMMs: each starts a tile column of its own); 64 when none.
  // (Two parts of each operand, or two B's, a stage: at most 128 wide, so that three stages
  // fit, and a dual GEMM's two accumulators take the registers of one 256 wide.)
  auto tiles = [&](int bn) {
    int64_t all = 0;
    for (const GemmExtent& o : outputs) all += CeilDiv(o.m, tile.bm) * CeilDiv(o.n, bn) * batch;
    return all;
  };
  for (int bn : {256, 128, 64}) {
    if ((parts > 1 || dual) && bn > 128) continue;
    tile.bn = bn;
    if (tiles(bn) >= kSms && narrowest > bn / 2) break;
  }
  // Whole waves: where the last wave of 256-wide tiles would leave many SMs idle, 128-wide
  // ones may finish sooner though each does less per byte staged (counted at 90%: a guess,
  // checked on q/k/v at M = 1024: 192 tiles of 256 are 1.45 waves, 384 of 128 are 2.9; the
  // 11% it gained there is not yet measured on single GEMMs, which keep their tiles).
  const auto waves = [&](int bn) { return CeilDiv(tiles(bn), kSms); };
  if (outputs.size() > 1 && tile.bn == 256 && tile.bm == 128 &&
      waves(128) * 128 < 0.9 * waves(256) * 256) {
    tile.bn = 128;
  }
  tile.stages = StagesThatFit(tile, tf32, parts, dual);
  return tile;
}

std::optional<GemmTile> ChooseSwappedTile(const std::vector<GemmExtent>& outputs, int64_t batch,
                                          bool dual) {
  GemmTile tile;
  tile.swap = true;
  int64_t most_rows = 0;
  for (const GemmExtent& o : outputs) most_rows = std::max(most_rows, o.m);
  if (most_rows > 128 || (most_rows > 32 && most_rows <= 64)) return std::nullopt;
  tile.bm = most_rows <= 16 ? 16 : most_rows <= 32 ? 32 : 128;
  // Two consumers (128 columns) where that still gives every SM a tile; else one, so that
  // twice the blocks stream B (16 x 4096 x 4096: 64 tiles of 64 columns).
  auto tiles = [&](int bn) {
    int64_t all = 0;
    for (const GemmExtent& o : outputs) all += CeilDiv(o.m, tile.bm) * CeilDiv(o.n, bn) * batch;
    return all;
  };
  tile.bn = tiles(128) >= kSms ? 128 : 64;
  // 65-128 rows: one tile row reads B once, where two of 64 rows read it twice, but only where
  // whole tiles keep at least half the SMs busy (a thread's 64 accumulators take no K
  // slices). H200, session 44, each size on its own kernel: q/k/v at M = 100 (96 tiles)
  // 0.69x -> 0.90x of cuBLASLt on the weights concatenated, SwiGLU at M = 100 (172 dual
  // tiles) 0.87x -> 0.97x of cuBLASLt's two GEMMs, 100 x 14336 x 4096 (224 tiles) 79% -> 89%;
  // 100 x 4096 x 4096 (64 tiles, in two K slices) 246 -> 226 TFLOP/s, so it keeps two tile
  // rows of 64. (33-64 rows measured the same on either tile: one tile row of 64 already
  // reads B once.)
  if (tile.bm == 128 && 2 * tiles(64) < kSms) return std::nullopt;
  tile.stages = StagesThatFit(tile, false, 1, dual);
  return tile;
}

GemmTile ChooseGemmTile(int64_t m, int64_t n, int64_t batch, bool tf32, int parts) {
  return ChooseGemmTile({GemmExtent{m, n}}, batch, tf32, parts, false);
}

namespace {

// A walk's tile and K slices.
struct WalkChoice {
  GemmTile tile;
  KSlicing cuts;
};

// A kernel that takes its rows serves a bucket of batches, [least_m, m]. Its tile suits the
// most rows, unless the fewest would take a tile of fewer rows (64 rather than 128, or a
// few-row tile): then that tile, with K slices chosen for the fewest rows and cut at run time
// for the tiles a batch has, so that more rows never need more pieces than the workspace
// holds. Its columns suit the most rows either way. H200, session 42, in a loop over batch
// sizes: 64 x 4096 x 4096 105 TFLOP/s on the tile for 127 rows, 157 on 64-row tiles; 32 x
// 4096 x 4096 69 on 64-row tiles, 81 on 32-row ones; the MLP block at batch 64 21.2-21.5 us
// against 17.1-17.6. Buckets whose fewest rows take the same tile keep the kernel for the
// most: at batch 200 its K cut at run time was 4% slower, and columns chosen for the fewest
// rows (narrower) 4.6% slower at batch 512.
WalkChoice ChooseWalk(const std::vector<GemmProblem>& walk, bool tf32, bool a_mn, int splits,
                      bool dual, bool grouped) {
  const GemmProblem& p = walk[0];
  const int64_t batch = p.batch.numel();
  std::vector<GemmExtent> most, least;
  for (const GemmProblem& part : walk) {
    most.push_back({part.m, part.n});
    least.push_back({part.least_m, part.n});
  }
  // tessel_gemm_sm90_a_shift's kernels (K-major 16-bit A, not grouped), for fixed rows.
  const bool a_box_moves = !tf32 && !a_mn && !grouped && !p.rows_argument;
  auto tile_for = [&](const std::vector<GemmExtent>& rows, int64_t least_rows) {
    std::optional<GemmTile> swapped;
    if (!tf32 && !a_mn) swapped = ChooseSwappedTile(rows, batch, dual);
    // A swapped tile row of 128 pays by reading B once: not for a bucket past 128 rows.
    if (swapped && swapped->bm == 128 && p.m > 128) swapped.reset();
    return swapped ? *swapped
                   : ChooseGemmTile(most, batch, tf32, splits, dual, least_rows, a_box_moves);
  };
  WalkChoice choice{tile_for(most, 0), KSlicing{}};
  const GemmTile for_least = tile_for(least, p.least_m);
  const bool by_least = for_least.bm != choice.tile.bm || for_least.swap != choice.tile.swap;
  if (by_least) choice.tile = for_least;
  if (grouped || tf32) return choice;
  const int64_t rows = by_least ? p.least_m : p.m;
  int64_t tiles = 0;
  for (const GemmProblem& part : walk) tiles += CeilDiv(part.n, choice.tile.bn);
  tiles *= CeilDiv(rows, choice.tile.bm) * batch;
  const int64_t k_steps = CeilDiv(p.k, choice.tile.bk);  // 16-bit: 128-byte rows
  choice.cuts = ChooseKSlices(choice.tile, tiles, k_steps, rows);
  if (by_least) choice.cuts = SlicedAtRunTime(choice.cuts);
  return choice;
}

}  // namespace

bool GemmSm90Applies(const FusedKernel& kernel, const Target& target) {
  if (target.major != 9 || !target.arch_specific) return false;
  return !CallsWithStack(kernel) && TensorCoreOperands(AnalyzeGemm(kernel));
}

KernelSource GenerateGemmSm90(const FusedKernel& kernel, const DynamicRows* rows) {
  KernelSource ks = NewKernelSource(kernel);
  std::vector<GemmProblem> parts = AnalyzeGemmParts(kernel, rows);
  const bool dual = kernel.gemm_form == GemmForm::kDual;
  const bool grouped = kernel.gemm_form == GemmForm::kGrouped;
  const bool tf32 = parts[0].a.buffer->dtype() == DType::kF32;
  const bool b_regs = ReadsBIntoRegisters(parts);
  for (GemmProblem& part : parts) {
    PlanOperandStaging(part, b_regs ? StagingNeed::kKMajorA : WgmmaStagingNeed(part));
  }
  const GemmProblem& p = parts[0];  // siblings and dual: A, m, k and the batch are every part's
  for (const GemmProblem& part : parts) {
    TESSEL_CHECK(parts.size() == 1 ||
                     (!part.a.staged && !part.b.staged && !part.tf32 &&
                      part.a.transposed == p.a.transposed && part.b.transposed == p.b.transposed &&
                      (!grouped || !part.rows_argument) && (!dual || part.n == p.n)),
                 "grouped GEMMs read 16-bit operands as stored (fusion/gemm_groups.cc)");
  }
  // The parts the tile walk covers: a dual GEMM's two share their tiles.
  const std::vector<GemmProblem> walk(parts.begin(), dual ? parts.begin() + 1 : parts.end());
  ks.takes_rows = p.rows_argument;
  // A kernel whose outputs are the matmuls themselves stores the consumers' staging tiles by
  // TMA; any other runs the generated epilogue in the epilogue warps (TF32: the consumers).
  // Rows that are not multiples of 8 outputs take no 16-byte vectors: the epilogue warps'
  // lanes then step along a row one output apart (STRIDED), so that a warp's store covers 4
  // rows x 16 contiguous bytes instead of 4 rows x 128 bytes with gaps (4097 x 4095 x 4096:
  // the kernel 247 us against the aligned 181 us before; Nsight Compute: stores stalled).
  bool tma_store = !tf32 && !dual && ks.outputs.size() == parts.size();
  bool strided = false;
  for (const GemmProblem& part : walk) {
    tma_store = tma_store && part.n % 8 == 0 &&
                std::find(ks.outputs.begin(), ks.outputs.end(), part.matmul) != ks.outputs.end();
    strided = strided || part.n % 8 != 0;
  }
  // Three TF32 products (kHigh): each operand's TF32 part and remainder, both staged.
  const int splits = p.stage_splits_tf32 ? 2 : 1;
  const bool a_mn = ReadsMnMajor(p.a, true), b_mn = ReadsMnMajor(p.b, false);
  const WalkChoice choice = ChooseWalk(walk, tf32, a_mn, splits, dual, grouped);
  const GemmTile& tile = choice.tile;
  const KSlicing& cuts = choice.cuts;
  const int bk = tf32 ? tile.bk / 2 : tile.bk;  // a stage's K: 128-byte rows
  const int slices = cuts.slices;
  // The pieces of K slices, after the staged operands' copies in the workspace.
  const int64_t fixup_offset = CeilDiv(p.staging_bytes, 256) * 256;
  const int64_t fixup_bytes = slices > 1 ? KSliceWorkspaceBytes(tile, dual, cuts.pieces) : 0;
  // tessel_gemm_sm90_layout's kSmemBytes (the K slices' walk: kKSliceWalkBytes more).
  const int64_t smem = 1024 + tile.stages * StageBytes(tile, splits, dual) +
                       StagingBytes(tile, tf32, dual) + 8 * (2 * tile.stages + 5) +
                       (slices > 1 && !cuts.all ? kKSliceWalkBytes : 0);
  ks.schedule = absl::StrCat(
      "wgmma", tile.swap ? " with the operands swapped (rows as its N)" : "", ", tiles of ",
      tile.bm, " x ", tile.bn, ", ", tile.stages, " stages",
      slices == 1 ? ""
      : cuts.all
          ? absl::StrCat(", each tile's K in ", slices, " slices for the SMs to share")
          : absl::StrCat(", the last round's tiles' K in ", slices, " slices for the SMs to share"),
      b_regs ? ", B read into registers (the product transposed)" : "");
  // The maps: A (each part's, grouped), each part's B, each part's output (TMA stores).
  int a_box_rows = tile.bm;
  if (tile.swap && !p.rows_argument && !grouped) {
    a_box_rows = static_cast<int>(std::min<int64_t>(tile.bm, CeilDiv(p.m, 8) * 8));
  }
  const size_t a_maps = grouped ? parts.size() : 1;
  for (size_t i = 0; i < a_maps; ++i) {
    ks.tensor_maps.push_back(
        OperandMap(ks, parts[i].a, a_mn ? 64 : a_box_rows, p.rows_argument, splits));
  }
  for (const GemmProblem& part : parts) {
    ks.tensor_maps.push_back(OperandMap(ks, part.b, b_mn ? bk : tile.bn, false, splits));
  }
  if (tma_store) {
    for (const GemmProblem& part : parts) {
      TensorMapSpec out;
      out.rows_dim1 = p.rows_argument;
      out.arg = static_cast<int>(ks.inputs.size() + OutputSlot(ks, part.matmul));
      out.dtype = part.matmul->dtype();
      out.dims = {part.n, part.m, std::max<int64_t>(p.batch.numel(), 1)};
      out.strides = {part.n * 2, part.m * part.n * 2};
      out.box = {64, StagingRows(tile)};  // a consumer's staging tile, box by box
      ks.tensor_maps.push_back(out);
    }
  }
  CodeWriter w;
  BeginSource(w, kernel, rows);
  w.Line("#include \"tessel/gemm_sm90.cuh\"");
  w.Blank();
  EmitOperandStaging(w, p, &ks);
  if (slices > 1) ks.workspace_bytes = fixup_offset + fixup_bytes;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string which = dual               ? (i == 0 ? "dual, first: " : "dual, second: ")
                              : parts.size() > 1 ? absl::StrCat("part ", i, ": ")
                                                 : "";
    w.Line("// ", which, "[", parts[i].m_expr, " x ", parts[i].k, "] x [", parts[i].k, " x ",
           parts[i].n, "], batch of ", p.batch.numel(), "; A ", a_mn ? "MN" : "K", "-major, B ",
           b_mn ? "MN" : "K", "-major");
  }
  int64_t tiles = 0;  // grouped: every tile; else tile columns (TILES_N)
  {
    w.Line("struct gemm_config {");
    CodeWriter::Scope config(&w, "};");
    EmitOperandConfig(w, p);
    w.Line("static constexpr int BM = ", tile.bm, ", BN = ", tile.bn, ", BK = ", bk,
           ", STAGES = ", tile.stages, ", GROUP_M = ", tile.group_m, ", SMEM = ", smem,
           ", A_BOX_ROWS = ", a_box_rows, ";");
    w.Line("static constexpr bool TF32 = ", tf32 ? "true" : "false",
           ", SPLIT = ", splits > 1 ? "true" : "false", ", B_REGS = ", b_regs ? "true" : "false",
           ", TMA_STORE = ", tma_store ? "true" : "false",
           ", STRIDED = ", strided ? "true" : "false", ", DUAL = ", dual ? "true" : "false",
           ", GROUPED = ", grouped ? "true" : "false", ", SWAP = ", tile.swap ? "true" : "false",
           ";");
    w.Line("static constexpr int K_SLICES = ", slices, ", MAX_PIECES = ", cuts.pieces,
           ";  // (the most slices of a tile, and of all)");
    w.Line("static constexpr bool CUT_ALL = ", cuts.all ? "true" : "false",
           ";  // (every tile in K_SLICES slices)");
    w.Line("static constexpr long long FIXUP_BYTES = ", fixup_bytes, ";");
    tiles = grouped ? EmitProblemWalk(w, walk, tile) : EmitPartWalk(w, walk, tile);
  }
  w.Blank();
  {
    // tessel_gemm_sm90 waits for the kernel before it (programmatic dependent launch).
    auto body = KernelBlock(w, "384, 1", kNamePlaceholder, ks, 1, GridDependency::kInLibrary);
    w.Line("const auto a_map = ", MapOfPart(0, a_maps), ";");
    w.Line("const auto b_map = ", MapOfPart(a_maps, parts.size()), ";");
    if (tma_store) {
      w.Line("const auto out_map = ", MapOfPart(a_maps + parts.size(), parts.size()), ";");
    }
    // m (grouped: the config's), and the K slices' workspace
    const std::string m_arg =
        absl::StrCat(grouped ? "0" : p.m_expr,
                     slices > 1 ? absl::StrCat(", (unsigned char*)ws + ", fixup_offset) : "");
    if (tf32) {
      EmitConsumerEpilogue(w, ks, p, tile, b_regs);
    } else if (tma_store) {
      w.Line(
          "tessel_gemm_sm90<gemm_config>(a_map, b_map, out_map, tessel_gemm_sm90_no_epilogue{}, ",
          m_arg, ");");
    } else {
      EmitWarpEpilogues(w, ks, walk, dual ? parts[1].matmul : nullptr, tile, strided, m_arg);
    }
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  if (grouped) {
    launch.grid = {tiles, 1, 1};
  } else {
    SetGemmGrid(p, tile.bm, tiles * slices, &launch);  // a unit a block, at most one an SM
  }
  launch.block = 384;
  launch.shared_bytes = smem;
  launch.persistent_per_sm = 1;
  ks.launches.push_back(launch);
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
