// The portable tensor-core GEMM (sm_80 and later, mma.sync): for GPUs without wgmma, for sm_90
// targets without the `a` features (TESSEL_ARCH=sm_90), and for GEMMs whose epilogue calls a
// function with a stack frame (f64 sin, cos). The generator writes the configuration, the
// epilogue and the kernel; the mainloop is the device library's tessel_gemm_sm80.
#include "absl/strings/str_cat.h"
#include "codegen/gemm_common.h"
#include "codegen/gemm_staging.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"

namespace tessel::codegen {
namespace {

constexpr int kTile = 128, kDepthBytes = 64, kStages = 4;

}  // namespace

bool GemmSm80Applies(const FusedKernel& kernel, const Target& target) {
  return target.major >= 8 && TensorCoreOperands(AnalyzeGemm(kernel));
}

KernelSource GenerateGemmSm80(const FusedKernel& kernel, const DynamicRows* rows) {
  KernelSource ks = NewKernelSource(kernel);
  const GemmProblem p = AnalyzeGemm(kernel, rows);
  ks.takes_rows = p.rows_argument;
  // Each stage: 128 rows x 64 bytes of K of A and of B as stored (rows along the contiguous
  // axis), padded as tessel_gemm_sm80_layout says.
  const int elem = DTypeSize(p.a.buffer->dtype()), depth = kDepthBytes / elem;
  const int pad_k = 16 / elem, pad_mn = p.tf32 ? 8 : 16 / elem;
  auto block = [&](bool k_contiguous) {
    return k_contiguous ? kTile * (depth + pad_k) : depth * (kTile + pad_mn);
  };
  const int64_t smem = kStages * (block(!p.a.transposed) + block(p.b.transposed)) * elem;
  const char* type = p.tf32 ? "float" : "unsigned short";
  CodeWriter w;
  BeginSource(w, kernel, rows);
  w.Line("#include \"tessel/gemm_sm80.cuh\"");
  w.Blank();
  EmitOperandStaging(w, p, &ks);
  w.Line("// [", p.m_expr, " x ", p.k, "] x [", p.k, " x ", p.n, "], batch of ", p.batch.numel(),
         "; A ", p.a.transposed ? "MN" : "K", "-major, B ", p.b.transposed ? "K" : "MN", "-major");
  {
    w.Line("struct gemm_config {");
    CodeWriter::Scope config(&w, "};");
    EmitOperandConfig(w, p);
    w.Line("static constexpr int STAGES = ", kStages, ", SMEM = ", smem, ";");
    w.Line("static constexpr bool TF32 = ", p.tf32 ? "true" : "false",
           ", SPLIT = ", p.split_tf32 ? "true" : "false", ";");
    w.Line("typedef ", type, " T;");
  }
  w.Blank();
  {
    // Three TF32 products keep each fragment's remainder and finite part live too; NVRTC's
    // ptxas held the plain bound to 128 registers and spilled (CUDA 13.0): one block an SM.
    auto body = KernelBlock(w, p.split_tf32 ? "256, 1" : "256", kNamePlaceholder, ks);
    const std::string t = absl::StrCat("const ", type);
    w.Line("tessel_gemm_sm80<gemm_config>(", OperandPointer(ks, p.a, t), ", ",
           OperandPointer(ks, p.b, t),
           ", [&](const float (&acc)[64], int batch, int row0, int col0) {");
    CodeWriter::Scope epilogue(&w, absl::StrCat("}, ", p.m_expr, ");"));
    w.Line("const int lane = threadIdx.x % 32;");
    w.Line("const int row_base = row0 + lane / 4, col_base = col0 + 2 * (lane % 4);");
    w.Line("// Register pair p holds columns (col, col + 1) of one row.");
    w.Line("#pragma unroll");
    auto pairs = w.Block("for (int p = 0; p < 32; ++p)");
    w.Line(
        "const int row = row_base + 16 * (p / 8) + 8 * (p % 2), col = col_base + 8 * (p / 2 % 4);");
    EpilogueSite site(2, "batch", "row", "col");
    site.matmul_value = "acc[2 * p + k]";
    EmitGemmEpilogue(w, ks, p, site);
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  SetGemmGrid(p, kTile, CeilDiv(p.n, kTile), &launch);
  launch.block = 256;
  launch.shared_bytes = smem;
  ks.launches.push_back(launch);
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
