// The portable GEMM: a plain tiled kernel (64x64 tiles, 16x16 threads with 4x4 outputs each,
// operands staged through shared memory in float) for what the tensor-core kernels do not
// take: f32 operands, mixed or misaligned operands, GPUs before sm_90. Correct for every
// shape, layout and batch broadcast; its epilogue is any elementwise graph.
#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/gemm_common.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

constexpr int kTile = 64, kStep = 16, kThreads = 256;

// The element (r, c) of `operand` (rows x cols as the matmul sees it) in its buffer.
std::string At(const GemmOperand& operand, const std::string& rows, int64_t cols,
               const std::string& r, const std::string& c) {
  return operand.transposed ? absl::StrCat("[(index_t)(", c, ") * ", rows, " + ", r, "]")
                            : absl::StrCat("[(index_t)(", r, ") * ", cols, " + ", c, "]");
}

}  // namespace

KernelSource GenerateGemmSimt(const FusedKernel& kernel, const DynamicRows* rows) {
  KernelSource ks = NewKernelSource(kernel);
  const GemmProblem p = AnalyzeGemm(kernel, rows);
  ks.takes_rows = p.rows_argument;
  const int64_t n = p.n, k = p.k;
  const std::string& m = p.m_expr;
  const DType ta = p.a.buffer->dtype(), tb = p.b.buffer->dtype();
  // float for every matmul but f64's, which stages, multiplies and accumulates in double.
  const std::string type = CudaComputeType(p.matmul->dtype());
  const char* fma = p.matmul->dtype() == DType::kF64 ? "fma" : "fmaf";
  CodeWriter w;
  BeginSource(w, kernel, rows);
  {
    auto body = KernelBlock(w, absl::StrCat(kThreads), kNamePlaceholder, ks);
    w.Line("// [", m, " x ", k, "] x [", k, " x ", n, "], batch of ", p.batch.numel(),
           p.a.transposed ? ", A read transposed" : "",
           p.b.transposed ? ", B read transposed" : "");
    w.Line("__shared__ ", type, " As[", kStep, "][", kTile + 4, "];");
    w.Line("__shared__ ", type, " Bs[", kStep, "][", kTile + 4, "];");
    // One block per tile, columns fastest, then rows, then batch entries: grid.x alone,
    // which has room for any batch (grid.y and grid.z stop at 65535).
    const int64_t tiles_n = CeilDiv(n, kTile);
    std::string tiles_m = absl::StrCat(CeilDiv(p.m, kTile));
    if (p.rows_argument) {
      w.Line("const long long tiles_m = (rows + ", kTile - 1, ") / ", kTile, ";");
      tiles_m = "tiles_m";
    }
    w.Line("const long long tile = blockIdx.x;");
    w.Line("const index_t batch = (index_t)(tile / ",
           p.rows_argument ? absl::StrCat("(", tiles_n, " * tiles_m)")
                           : absl::StrCat(tiles_n * CeilDiv(p.m, kTile)),
           ");");
    w.Line("const int m0 = (int)(tile / ", tiles_n, " % ", tiles_m, ") * ", kTile,
           ", n0 = (int)(tile % ", tiles_n, ") * ", kTile, ";");
    w.Line("const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;");
    w.Line("const ", StorageType(ta), "* A = ", PointerName(ks, p.a.buffer), " + (index_t)",
           OperandMatrixIndex(p.a, p.batch, "batch"), " * ",
           p.rows_argument ? absl::StrCat("rows * ", k) : absl::StrCat(p.m * k), ";");
    w.Line("const ", StorageType(tb), "* B = ", PointerName(ks, p.b.buffer), " + (index_t)",
           OperandMatrixIndex(p.b, p.batch, "batch"), " * ", k * n, ";");
    w.Line(type, " acc[16] = {};");
    {
      auto loop = w.Block("for (int k0 = 0; k0 < ", k, "; k0 += ", kStep, ")");
      {
        auto load =
            w.Block("for (int i = threadIdx.x; i < ", kTile * kStep, "; i += ", kThreads, ")");
        w.Line("const int r = i / ", kStep, ", c = i % ", kStep, ";");
        // Under TF32 the operands are truncated as the tensor-core kernels read them.
        auto operand = [&](DType t, const std::string& element) {
          const std::string v = LoadConvert(t, element);
          // (Three TF32 products, kHigh, stand for f32: the plain kernel computes f32.)
          return p.tf32 && !p.split_tf32 ? absl::StrCat("tessel_tf32(", v, ")") : v;
        };
        w.Line("As[c][r] = (m0 + r < ", m, " && k0 + c < ", k, ") ? ",
               operand(ta, absl::StrCat("A", At(p.a, m, k, "m0 + r", "k0 + c"))), " : 0.0f;");
        w.Line("const int kr = i / ", kTile, ", nc = i % ", kTile, ";");
        w.Line("Bs[kr][nc] = (k0 + kr < ", k, " && n0 + nc < ", n, ") ? ",
               operand(tb, absl::StrCat("B", At(p.b, absl::StrCat(k), n, "k0 + kr", "n0 + nc"))),
               " : 0.0f;");
      }
      w.Line("__syncthreads();");
      w.Line("#pragma unroll");
      {
        auto inner = w.Block("for (int kk = 0; kk < ", kStep, "; ++kk)");
        w.Line(type, " av[4], bv[4];");
        w.Line("#pragma unroll");
        w.Line("for (int i = 0; i < 4; ++i) av[i] = As[kk][ty * 4 + i];");
        w.Line("#pragma unroll");
        w.Line("for (int j = 0; j < 4; ++j) bv[j] = Bs[kk][tx * 4 + j];");
        w.Line("#pragma unroll");
        // An explicit FMA: kernels compile without contraction (each graph node rounds),
        // but a matmul's accumulation is its own, and FFMA is twice the throughput.
        w.Line("for (int t = 0; t < 16; ++t) acc[t] = ", fma, "(av[t / 4], bv[t % 4], acc[t]);");
      }
      w.Line("__syncthreads();");
    }
    // Each thread's 4x4 outputs, one row of four lanes at a time.
    w.Line("#pragma unroll");
    auto rows = w.Block("for (int i = 0; i < 4; ++i)");
    EpilogueSite site(4, "batch", "(m0 + ty * 4 + i)", "(n0 + tx * 4)");
    site.matmul_value = "acc[i * 4 + k]";
    EmitGemmEpilogue(w, ks, p, site);
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  SetGemmGrid(p, kTile, CeilDiv(n, kTile), &launch);
  launch.block = kThreads;
  ks.launches.push_back(launch);
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
