// The Hopper GEMM (sm_90a): the generator writes the tile configuration, the epilogue and
// the kernel; the mainloop is the device library's tessel_gemm_sm90 (codegen/device/).
// Operands arrive by TMA, so each needs rows of a multiple of 16 bytes: other rows are staged
// first (gemm_staging.h) and the maps read the padded copies. f32 operands under TF32 must be
// K-major, the only layout wgmma reads 32-bit operands in: MN-major ones are staged
// transposed; under kHigh both are staged as TF32 parts and remainders.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/gemm_common.h"
#include "codegen/gemm_staging.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

constexpr int kSharedLimit = 227 * 1024;  // per block on sm_90
constexpr int kSms = 132;                 // H100 SXM; only shapes the tile choice

// The consumers' staging tiles (one per 64 rows): the tile's matmul values in 16 bits. TF32
// kernels have none (the consumers run the epilogue from their accumulators).
int StagingBytes(const GemmTile& tile, bool tf32) { return tf32 ? 0 : tile.bm * tile.bn * 2; }

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
// (the fragment layout tessel_gemm_sm90 documents).
void EmitConsumerEpilogue(CodeWriter& w, const KernelSource& ks, const GemmProblem& p,
                          const GemmTile& tile) {
  w.Line("tessel_gemm_sm90<gemm_config>(tmap0, tmap1, nullptr, [&](const float (&acc)[",
         tile.bn / 2, "], int batch, int row0, int col0) {");
  CodeWriter::Scope epilogue(&w, absl::StrCat("}, ", p.m_expr, ");"));
  w.Line("const int t = threadIdx.x % 128;");
  w.Line(
      "const int row_base = row0 + 16 * (t / 32) + (t % 32) / 4, col_base = col0 + 2 * (t % 4);");
  w.Line("// Register pair q holds columns (col, col + 1) of one row.");
  w.Line("#pragma unroll");
  auto pairs = w.Block(absl::StrCat("for (int q = 0; q < ", tile.bn / 4, "; ++q)"));
  w.Line("const int row = row_base + 8 * (q % 2), col = col_base + 8 * (q / 2);");
  EpilogueSite site(2, "batch", "row", "col");
  site.matmul_value = "acc[2 * q + k]";
  site.rows_inside = !p.rows_argument && p.m % tile.bm == 0;
  site.cols_inside = p.n % tile.bn == 0;
  EmitGemmEpilogue(w, ks, p, site);
}

}  // namespace

GemmTile ChooseGemmTile(int64_t m, int64_t n, int64_t batch, bool tf32, int parts) {
  GemmTile tile;
  // At most 64 rows: one consumer warpgroup, and stages half the size, so that more of B is
  // in flight where streaming B is the whole cost.
  if (m <= 64) tile.bm = 64;
  // The widest tile that still gives every SM a tile; 64 when none does.
  // (Two parts of each operand a stage: at most 128 wide, so that three stages fit.)
  for (int bn : {256, 128, 64}) {
    if (parts > 1 && bn > 128) continue;
    tile.bn = bn;
    if (CeilDiv(m, tile.bm) * CeilDiv(n, bn) * batch >= kSms && n > bn / 2) break;
  }
  const int stage = (tile.bm + tile.bn) * tile.bk * 2 * parts;
  tile.stages = std::min(16, (kSharedLimit - 2048 - StagingBytes(tile, tf32)) / stage);
  return tile;
}

bool GemmSm90Applies(const FusedKernel& kernel, const Target& target) {
  if (target.major != 9 || !target.arch_specific) return false;
  return !CallsWithStack(kernel) && TensorCoreOperands(AnalyzeGemm(kernel));
}

KernelSource GenerateGemmSm90(const FusedKernel& kernel, const DynamicRows* rows) {
  KernelSource ks = NewKernelSource(kernel);
  GemmProblem p = AnalyzeGemm(kernel, rows);
  const bool tf32 = p.a.buffer->dtype() == DType::kF32;
  PlanOperandStaging(p, WgmmaStagingNeed(p));
  ks.takes_rows = p.rows_argument;
  // A kernel whose one output is the matmul itself stores the consumers' staging tiles by
  // TMA; any other runs the generated epilogue in the epilogue warps (TF32: the consumers).
  const bool tma_store =
      !tf32 && ks.outputs.size() == 1 && ks.outputs[0] == p.matmul && p.n % 8 == 0;
  // Rows that are not multiples of 8 outputs take no 16-byte vectors: the epilogue warps'
  // lanes then step along a row one output apart (STRIDED), so that a warp's store covers 4
  // rows x 16 contiguous bytes instead of 4 rows x 128 bytes with gaps (4097 x 4095 x 4096:
  // the kernel 247 us against the aligned 181 us before; Nsight Compute: stores stalled).
  const bool strided = p.n % 8 != 0;
  // Three TF32 products (kHigh): each operand's TF32 part and remainder, both staged.
  const int parts = p.stage_splits_tf32 ? 2 : 1;
  const GemmTile tile = ChooseGemmTile(p.m, p.n, p.batch.numel(), tf32, parts);
  const int64_t smem = 1024 + tile.stages * (tile.bm + tile.bn) * tile.bk * 2 * parts +
                       StagingBytes(tile, tf32) + 8 * (2 * tile.stages + 4);
  const bool a_mn = ReadsMnMajor(p.a, true), b_mn = ReadsMnMajor(p.b, false);
  ks.tensor_maps.push_back(OperandMap(ks, p.a, a_mn ? 64 : tile.bm, p.rows_argument, parts));
  ks.tensor_maps.push_back(OperandMap(ks, p.b, b_mn ? 64 : tile.bn, false, parts));
  if (tma_store) {
    TensorMapSpec out;
    out.rows_dim1 = p.rows_argument;
    out.arg = static_cast<int>(ks.inputs.size());
    out.dtype = p.matmul->dtype();
    out.dims = {p.n, p.m, std::max<int64_t>(p.batch.numel(), 1)};
    out.strides = {p.n * 2, p.m * p.n * 2};
    ks.tensor_maps.push_back(out);
  }
  CodeWriter w;
  BeginSource(w, kernel, rows);
  w.Line("#include \"tessel/gemm_sm90.cuh\"");
  w.Blank();
  EmitOperandStaging(w, p, &ks);
  w.Line("// [", p.m_expr, " x ", p.k, "] x [", p.k, " x ", p.n, "], batch of ", p.batch.numel(),
         "; A ", a_mn ? "MN" : "K", "-major, B ", b_mn ? "MN" : "K", "-major");
  {
    w.Line("struct gemm_config {");
    CodeWriter::Scope config(&w, "};");
    EmitOperandConfig(w, p);
    w.Line("static constexpr int BM = ", tile.bm, ", BN = ", tile.bn,
           ", BK = ", tf32 ? tile.bk / 2 : tile.bk, ", STAGES = ", tile.stages,
           ", GROUP_M = ", tile.group_m, ", SMEM = ", smem, ";");
    w.Line("static constexpr bool TF32 = ", tf32 ? "true" : "false",
           ", SPLIT = ", parts > 1 ? "true" : "false",
           ", TMA_STORE = ", tma_store ? "true" : "false",
           ", STRIDED = ", strided ? "true" : "false", ";");
  }
  w.Blank();
  {
    auto body = KernelBlock(w, "384, 1", kNamePlaceholder, ks);
    if (tf32) {
      EmitConsumerEpilogue(w, ks, p, tile);
    } else if (tma_store) {
      w.Line("tessel_gemm_sm90<gemm_config>(tmap0, tmap1, &tmap2, tessel_gemm_sm90_no_epilogue{}, ",
             p.m_expr, ");");
    } else {
      const int lanes = tile.bn / 8;
      w.Line("// The epilogue warps: outputs (row, col + ", strided ? "8 k" : "64 (k / 8) + k % 8",
             "), k < ", lanes, ", from the matmul's 16-bit values in pairs, mm[k / 2].");
      w.Line("tessel_gemm_sm90<gemm_config>(tmap0, tmap1, nullptr, [&](const unsigned (&mm)[",
             lanes / 2, "], int batch, int row, int col) {");
      CodeWriter::Scope epilogue(&w, absl::StrCat("}, ", p.m_expr, ");"));
      EpilogueSite site(lanes, "batch", "row", "col");
      site.matmul_words = "mm";
      site.rows_inside = !p.rows_argument && p.m % tile.bm == 0;
      site.cols_inside = p.n % tile.bn == 0;
      site.lane_column = strided ? "8 * k" : "k % 8 + 64 * (k / 8)";
      site.run = strided ? 1 : 8;
      EmitGemmEpilogue(w, ks, p, site);
    }
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  SetGemmGrid(p, tile.bm, CeilDiv(p.n, tile.bn), &launch);
  launch.block = 384;
  launch.shared_bytes = smem;
  launch.persistent_per_sm = 1;
  ks.launches.push_back(launch);
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
