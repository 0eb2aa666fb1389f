// The Hopper GEMM (sm_90a): the generator writes the tile configuration, the epilogue and
// the kernel; the mainloop is the device library's tessel_gemm_sm90 (codegen/device/).
// Operands arrive by TMA, so each needs rows of a multiple of 16 bytes: other rows are staged
// first (gemm_staging.h) and the maps read the padded copies. f32 operands under TF32 must be
// K-major, the only layout wgmma reads 32-bit operands from shared memory in: B as stored is
// read into registers on tiles of 128 rows (128 or 256 wide) or of 64 rows (B_REGS), other
// MN-major ones are staged transposed; under kHigh both are staged as TF32 parts and
// remainders.
#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/gemm_common.h"
#include "codegen/gemm_k_slices.h"
#include "codegen/gemm_sm90_tiles.h"
#include "codegen/gemm_sm90_walk.h"
#include "codegen/gemm_staging.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "core/error.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

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
  ks.takes_rows = p.rows_argument || p.k_argument;
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
    ks.tensor_maps.push_back(OperandMap(ks, parts[i].a, a_mn ? 64 : a_box_rows,
                                        p.rows_argument || p.k_argument, splits));
  }
  for (const GemmProblem& part : parts) {
    ks.tensor_maps.push_back(OperandMap(ks, part.b, b_mn ? bk : tile.bn, part.k_argument, splits));
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
    const std::string k = parts[i].k_argument ? "rows" : absl::StrCat(parts[i].k);
    w.Line("// ", which, "[", parts[i].m_expr, " x ", k, "] x [", k, " x ", parts[i].n,
           "], batch of ", p.batch.numel(), "; A ", a_mn ? "MN" : "K", "-major, B ",
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
           ", KEEP_A = ", tile.keep_a ? "true" : "false", ";");
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
    // (K as the rows argument: its K steps.)
    std::string m_arg =
        absl::StrCat(grouped ? "0" : p.m_expr,
                     slices > 1 ? absl::StrCat(", (unsigned char*)ws + ", fixup_offset) : "");
    if (p.k_argument) {
      TESSEL_CHECK(slices == 1 && !tf32, "a GEMM whose K is the rows argument has no K slices");
      absl::StrAppend(&m_arg, ", nullptr, (int)((rows + ", bk - 1, ") / ", bk, ")");
    }
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
