// The portable GEMM: a tiled kernel for what the tensor-core kernels do not take (exact f32,
// f64, mixed operands, GPUs before sm_80). Blocks of 16 x 16 threads own T x T output tiles
// (T = 128 where the grid still fills the GPU, else 64), each thread (T / 16)² outputs in
// 4 x 4 blocks 64 apart, so that its shared-memory reads are 16-byte vectors that a warp
// reads without bank conflicts. Operands are staged through two shared buffers in the compute
// type: the next step's elements are loaded into registers while the current step multiplies.
// Correct for every shape, layout and batch broadcast; its epilogue is any elementwise graph.
#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/gemm_common.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

constexpr int kStep = 16, kThreads = 256, kSms = 132;

// The element (r, c) of `operand` (rows x cols as the matmul sees it) in its buffer.
std::string At(const GemmOperand& operand, const std::string& rows, int64_t cols,
               const std::string& r, const std::string& c) {
  return operand.transposed ? absl::StrCat("[(index_t)(", c, ") * ", rows, " + ", r, "]")
                            : absl::StrCat("[(index_t)(", r, ") * ", cols, " + ", c, "]");
}

// 128 x 128 tiles double a thread's outputs per shared-memory read (exact f32 4096³ on the
// H100: 23 TFLOP/s with 64 x 64 tiles); 64 where they would leave SMs idle, and for double,
// whose two 128-wide buffers would pass the 48 KB of static shared memory.
int ChooseSimtTile(const GemmProblem& p) {
  if (p.matmul->dtype() == DType::kF64) return 64;
  return CeilDiv(p.m, 128) * CeilDiv(p.n, 128) * p.batch.numel() >= kSms ? 128 : 64;
}

// Element u of this thread in a step: (r, c) of A's tile (rows x k), (kr, nc) of B's
// (k x columns); adjacent threads take adjacent elements of each buffer, so loads coalesce.
void EmitStepIndices(CodeWriter& w, const GemmProblem& p, int tile) {
  w.Line("const int i = threadIdx.x + u * ", kThreads, ";");
  if (p.a.transposed) {
    w.Line("const int r = i % ", tile, ", c = i / ", tile, ";");
  } else {
    w.Line("const int r = i / ", kStep, ", c = i % ", kStep, ";");
  }
  if (p.b.transposed) {
    w.Line("const int kr = i % ", kStep, ", nc = i / ", kStep, ";");
  } else {
    w.Line("const int kr = i / ", tile, ", nc = i % ", tile, ";");
  }
}

// Loads step `k0` of both operands into registers ra / rb (zeros outside the matrices).
void EmitStepLoad(CodeWriter& w, const GemmProblem& p, int tile, const std::string& k0) {
  const DType ta = p.a.buffer->dtype(), tb = p.b.buffer->dtype();
  const std::string& m = p.m_expr;
  // Under TF32 the operands are truncated as the tensor-core kernels read them. (Three TF32
  // products, kHigh, stand for f32: this kernel computes f32.)
  auto operand = [&](DType t, const std::string& element) {
    const std::string v = LoadConvert(t, element);
    return p.tf32 && !p.split_tf32 ? absl::StrCat("tessel_tf32(", v, ")") : v;
  };
  w.Line("#pragma unroll");
  auto each = w.Block("for (int u = 0; u < ", tile * kStep / kThreads, "; ++u)");
  EmitStepIndices(w, p, tile);
  w.Line("ra[u] = (m0 + r < ", m, " && ", k0, " + c < ", p.k, ") ? ",
         operand(ta, absl::StrCat("A", At(p.a, m, p.k, "m0 + r", k0 + " + c"))), " : 0;");
  w.Line("rb[u] = (", k0, " + kr < ", p.k, " && n0 + nc < ", p.n, ") ? ",
         operand(tb, absl::StrCat("B", At(p.b, absl::StrCat(p.k), p.n, k0 + " + kr", "n0 + nc"))),
         " : 0;");
}

// Stores ra / rb into shared buffer `buf`: A transposed (k rows), B as read.
void EmitStepStore(CodeWriter& w, const GemmProblem& p, int tile, const std::string& buf) {
  w.Line("#pragma unroll");
  auto each = w.Block("for (int u = 0; u < ", tile * kStep / kThreads, "; ++u)");
  EmitStepIndices(w, p, tile);
  w.Line("As[", buf, "][c][r] = ra[u];");
  w.Line("Bs[", buf, "][kr][nc] = rb[u];");
}

}  // namespace

KernelSource GenerateGemmSimt(const FusedKernel& kernel, const DynamicRows* rows) {
  KernelSource ks = NewKernelSource(kernel);
  const GemmProblem p = AnalyzeGemm(kernel, rows);
  ks.takes_rows = p.rows_argument;
  const int64_t n = p.n, k = p.k;
  const int tile = ChooseSimtTile(p), blocks = tile / 64;  // 4 x 4 blocks per thread and axis
  // float for every matmul but f64's, which stages, multiplies and accumulates in double.
  const std::string type = CudaComputeType(p.matmul->dtype());
  const char* fma = p.matmul->dtype() == DType::kF64 ? "fma" : "fmaf";
  const char* vec = p.matmul->dtype() == DType::kF64 ? "double2" : "float4";  // 16 bytes
  const int per_vec = p.matmul->dtype() == DType::kF64 ? 2 : 4;
  CodeWriter w;
  BeginSource(w, kernel, rows);
  {
    // 128-wide tiles: two blocks an SM (at most 128 registers a thread), so that one block's
    // loads and barriers hide under the other's FMAs.
    auto body = KernelBlock(w, blocks == 2 ? absl::StrCat(kThreads, ", 2") : absl::StrCat(kThreads),
                            kNamePlaceholder, ks);
    w.Line("// [", p.m_expr, " x ", k, "] x [", k, " x ", n, "], batch of ", p.batch.numel(),
           p.a.transposed ? ", A read transposed" : "", p.b.transposed ? ", B read transposed" : "",
           "; ", tile, " x ", tile, " tiles");
    // Rows padded by 4 elements: 16-byte aligned, and A's transposed stores spread over banks.
    w.Line("__shared__ __align__(16) ", type, " As[2][", kStep, "][", tile + 4, "];");
    w.Line("__shared__ __align__(16) ", type, " Bs[2][", kStep, "][", tile + 4, "];");
    // One block per tile, columns fastest, then rows, then batch entries: grid.x alone,
    // which has room for any batch (grid.y and grid.z stop at 65535).
    const int64_t tiles_n = CeilDiv(n, tile);
    std::string tiles_m = absl::StrCat(CeilDiv(p.m, tile));
    if (p.rows_argument) {
      w.Line("const long long tiles_m = (rows + ", tile - 1, ") / ", tile, ";");
      tiles_m = "tiles_m";
    }
    w.Line("const long long tile = blockIdx.x;");
    w.Line("const index_t batch = (index_t)(tile / ",
           p.rows_argument ? absl::StrCat("(", tiles_n, " * tiles_m)")
                           : absl::StrCat(tiles_n * CeilDiv(p.m, tile)),
           ");");
    w.Line("const int m0 = (int)(tile / ", tiles_n, " % ", tiles_m, ") * ", tile,
           ", n0 = (int)(tile % ", tiles_n, ") * ", tile, ";");
    w.Line("const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;");
    w.Line("const ", StorageType(p.a.buffer->dtype()), "* A = ", PointerName(ks, p.a.buffer),
           " + (index_t)", OperandMatrixIndex(p.a, p.batch, "batch"), " * ",
           p.rows_argument ? absl::StrCat("rows * ", k) : absl::StrCat(p.m * k), ";");
    w.Line("const ", StorageType(p.b.buffer->dtype()), "* B = ", PointerName(ks, p.b.buffer),
           " + (index_t)", OperandMatrixIndex(p.b, p.batch, "batch"), " * ", k * n, ";");
    const int outputs = 16 * blocks * blocks;
    w.Line(type, " acc[", outputs, "] = {};");
    w.Line(type, " ra[", tile * kStep / kThreads, "], rb[", tile * kStep / kThreads, "];");
    EmitStepLoad(w, p, tile, "0");
    EmitStepStore(w, p, tile, "0");
    w.Line("__syncthreads();");
    {
      auto loop = w.Block("for (int k0 = 0, buf = 0; k0 < ", k, "; k0 += ", kStep, ", buf ^= 1)");
      w.Line("const bool more = k0 + ", kStep, " < ", k, ";");
      {
        auto next = w.Block("if (more)");
        EmitStepLoad(w, p, tile, absl::StrCat("(k0 + ", kStep, ")"));
      }
      w.Line("#pragma unroll");
      {
        auto inner = w.Block("for (int kk = 0; kk < ", kStep, "; ++kk)");
        w.Line(type, " av[", 4 * blocks, "], bv[", 4 * blocks, "];");
        w.Line("#pragma unroll");
        {
          auto b = w.Block("for (int h = 0; h < ", blocks * 4 / per_vec, "; ++h)");
          // Vector h of a thread's 4 x 4 blocks: float4 h is block h (64 apart); double2 h is
          // half h of its one block (f64 tiles are 64 wide).
          const std::string at = per_vec == 4 ? "64 * h" : "2 * h";
          w.Line("*(", vec, "*)&av[h * ", per_vec, "] = *(const ", vec, "*)&As[buf][kk][ty * 4 + ",
                 at, "];");
          w.Line("*(", vec, "*)&bv[h * ", per_vec, "] = *(const ", vec, "*)&Bs[buf][kk][tx * 4 + ",
                 at, "];");
        }
        w.Line("#pragma unroll");
        // An explicit FMA: kernels compile without contraction (each graph node rounds),
        // but a matmul's accumulation is its own, and FFMA is twice the throughput.
        w.Line("for (int t = 0; t < ", outputs, "; ++t) acc[t] = ", fma, "(av[t / ", 4 * blocks,
               "], bv[t % ", 4 * blocks, "], acc[t]);");
      }
      {
        auto next = w.Block("if (more)");
        EmitStepStore(w, p, tile, "buf ^ 1");
      }
      w.Line("__syncthreads();");
    }
    // Each thread's outputs, four adjacent lanes at a time: row i of its rows, column block cb.
    w.Line("#pragma unroll");
    auto out_rows = w.Block("for (int i = 0; i < ", 4 * blocks, "; ++i)");
    w.Line("#pragma unroll");
    auto out_cols = w.Block("for (int cb = 0; cb < ", blocks, "; ++cb)");
    EpilogueSite site(4, "batch", "(m0 + ty * 4 + i % 4 + 64 * (i / 4))",
                      "(n0 + tx * 4 + 64 * cb)");
    site.matmul_value = absl::StrCat("acc[i * ", 4 * blocks, " + cb * 4 + k]");
    EmitGemmEpilogue(w, ks, p, site);
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  SetGemmGrid(p, tile, CeilDiv(n, tile), &launch);
  launch.block = kThreads;
  ks.launches.push_back(launch);
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
