// The portable GEMM: a tiled kernel for what the tensor-core kernels do not take (exact f32,
// f64, mixed operands, GPUs before sm_80). Blocks of 16 x 16 threads own T x T output tiles
// (T = 128 where the grid still fills the GPU, else 64), each thread (T / 16)² outputs in
// 4 x 4 blocks 64 apart, so that its shared-memory reads are 16-byte vectors that a warp
// reads without bank conflicts. Operands are staged through two shared buffers in the compute
// type: the next step's elements are loaded into registers while the current step multiplies.
// Correct for every shape, layout and batch broadcast; its epilogue is any elementwise graph.
//
// FFMA and every other instruction share the issue slots, so the step's loads are few:
// 16-byte vectors along each operand's contiguous axis where its rows allow, through
// pointers that advance by a step, with one bounds check a vector.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/expr_emitter.h"
#include "codegen/gemm_common.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

constexpr int kStep = 16, kThreads = 256, kSms = 132;

// How the kernel reads one operand's T x kStep part a step: `name` (A or B), stored as rows of
// `pitch` elements along its contiguous axis, which is k (`k_major`) or the tile's own axis
// (m for A, n for B). `vec` elements a load: 16 bytes where rows and matrices keep them
// aligned (at most 4, so that the registers a step holds stay the same), else 1. `async`:
// the vectors go to shared memory as they are (along the tile's axis, in the compute type),
// copied without registers (cp.async), which leaves the 128 a thread has to the products.
struct OperandReads {
  std::string name;
  const GemmOperand* operand;
  bool k_major;
  std::string tile_extent;  // m or n: the extent of the tile's axis
  std::string origin;       // m0 or n0
  int64_t pitch;
  int vec;
  bool async;
  int inner_extent(int tile) const { return k_major ? kStep : tile; }
  int per_thread(int tile) const { return tile * kStep / vec / kThreads; }
};

// The type the kernel stages and multiplies in: double for f64 matmuls, float for the rest.
DType ComputeDType(const GemmProblem& p) {
  return p.matmul->dtype() == DType::kF64 ? DType::kF64 : DType::kF32;
}

OperandReads ReadsOf(const GemmProblem& p, bool is_a) {
  const GemmOperand& o = is_a ? p.a : p.b;
  OperandReads r;
  r.name = is_a ? "A" : "B";
  r.operand = &o;
  r.k_major = is_a != o.transposed;  // A stored [m, k], B stored [n, k] when transposed
  r.tile_extent = is_a ? p.m_expr : absl::StrCat(p.n);
  r.origin = is_a ? "m0" : "n0";
  const int64_t mn = is_a ? p.m : p.n;
  r.pitch = r.k_major ? p.k : mn;
  const int64_t size = DTypeSize(o.buffer->dtype());
  r.vec = static_cast<int>(std::min<int64_t>(4, 16 / size));
  // The contiguous extent's multiple keeps each vector inside or outside the matrix, and
  // aligned (buffers start 16-byte aligned; matrices are whole rows apart).
  if (r.pitch % r.vec != 0) r.vec = 1;
  r.async = !r.k_major && r.vec * size == 16 && o.buffer->dtype() == ComputeDType(p) &&
            !(p.tf32 && !p.split_tf32);
  return r;
}

// 128 x 128 tiles double a thread's outputs per shared-memory read (exact f32 4096³ on the
// H100: 23 TFLOP/s with 64 x 64 tiles); 64 where they would leave SMs idle, and for double,
// whose two 128-wide buffers would pass the 48 KB of static shared memory.
int ChooseSimtTile(const GemmProblem& p) {
  if (p.matmul->dtype() == DType::kF64) return 64;
  return CeilDiv(p.m, 128) * CeilDiv(p.n, 128) * p.batch.numel() >= kSms ? 128 : 64;
}

// This thread's vector u of a step: `outer` along the operand's rows as stored, `inner` (its
// first element) along them. Adjacent threads take adjacent vectors: loads coalesce.
void EmitVectorPosition(CodeWriter& w, const OperandReads& r, int tile) {
  const int vectors_a_row = r.inner_extent(tile) / r.vec;
  w.Line("const int i = threadIdx.x + u * ", kThreads, ", outer = i / ", vectors_a_row,
         ", inner = i % ", vectors_a_row, " * ", r.vec, ";");
}

// Before the main loop: the pointer to this thread's first vector at step 0. Its vector u
// lies u * 256 / (vectors a row) rows further, at the same position along the row.
void EmitReadSetup(CodeWriter& w, const KernelSource& ks, const GemmProblem& p,
                   const OperandReads& r, int tile) {
  const std::string& x = r.name;
  const std::string matrix =
      x == "A" ? (p.rows_argument ? absl::StrCat("rows * ", p.k) : absl::StrCat(p.m * p.k))
               : absl::StrCat(p.k * p.n);
  const int vectors_a_row = r.inner_extent(tile) / r.vec;
  const std::string outer = absl::StrCat("threadIdx.x / ", vectors_a_row),
                    inner = absl::StrCat("threadIdx.x % ", vectors_a_row, " * ", r.vec);
  w.Line("const ", StorageType(r.operand->buffer->dtype()), "* ", x,
         "p = ", PointerName(ks, r.operand->buffer), " + (index_t)",
         OperandMatrixIndex(*r.operand, p.batch, "batch"), " * ", matrix, " + (index_t)(",
         r.k_major ? absl::StrCat(r.origin, " + ") : "", outer, ") * ", r.pitch, " + ",
         r.k_major ? "" : absl::StrCat(r.origin, " + "), inner, ";");
}

// The bounds checks of vector u at step `k0`, only along axes the tiles do not divide ("" if
// none is needed).
std::string VectorInside(const GemmProblem& p, const OperandReads& r, int tile,
                         const std::string& k0) {
  const int64_t extent = r.name == "A" ? p.m : p.n;
  std::vector<std::string> checks;
  if (p.rows_argument || extent % tile != 0) {
    checks.push_back(
        absl::StrCat(r.origin, " + ", r.k_major ? "outer" : "inner", " < ", r.tile_extent));
  }
  if (p.k % kStep != 0) {
    checks.push_back(absl::StrCat(k0, " + ", r.k_major ? "inner" : "outer", " < ", p.k));
  }
  return absl::StrJoin(checks, " && ");
}

// Loads the step at `k0` of one operand (zeros outside the matrix) into registers r<name>, or
// where `async` straight into shared buffer `buf`, and advances its pointer by a step.
void EmitStepLoad(CodeWriter& w, const GemmProblem& p, const OperandReads& r, int tile,
                  const std::string& k0, const std::string& buf) {
  const std::string& x = r.name;
  const DType t = r.operand->buffer->dtype();
  const char* storage = StorageType(t);
  // Under TF32 the operands are truncated as the tensor-core kernels read them. (Three TF32
  // products, kHigh, stand for f32: this kernel computes f32.)
  auto value = [&](const std::string& element) {
    const std::string v = LoadConvert(t, element);
    return p.tf32 && !p.split_tf32 ? absl::StrCat("tessel_tf32(", v, ")") : v;
  };
  const std::string inside = VectorInside(p, r, tile, k0);
  const int rows_apart = kThreads / (r.inner_extent(tile) / r.vec);
  const std::string at = absl::StrCat(x, "p + u * ", rows_apart * r.pitch);
  const std::string vec = absl::StrCat("tessel_vec<", storage, ", ", r.vec, ">");
  const std::string load =
      r.vec == 1 ? absl::StrCat("*(", at, ")")
                 : absl::StrCat("tessel_load_vec<", storage, ", ", r.vec, ">(", at, ")");
  w.Line("#pragma unroll");
  {
    auto each = w.Block("for (int u = 0; u < ", r.per_thread(tile), "; ++u)");
    if (r.async || !inside.empty()) EmitVectorPosition(w, r, tile);
    if (r.async) {
      w.Line("tessel_copy_16_async(&", x, "s[", buf, "][outer][inner], ", at, ", ",
             inside.empty() ? "true" : inside, ");");
    } else {
      if (inside.empty()) {
        w.Line("const ", r.vec == 1 ? storage : vec, " v = ", load, ";");
      } else if (r.vec == 1) {
        w.Line("const ", storage, " v = ", inside, " ? ", load, " : (", storage, ")0;");
      } else {
        w.Line(vec, " v{};");
        w.Line("if (", inside, ") v = ", load, ";");
      }
      if (r.vec == 1) {
        w.Line("r", x, "[u] = ", value("v"), ";");
      } else {
        w.Line("#pragma unroll");
        w.Line("for (int j = 0; j < ", r.vec, "; ++j) r", x, "[u * ", r.vec,
               " + j] = ", value("v.v[j]"), ";");
      }
    }
  }
  w.Line(x, "p += ", r.k_major ? kStep : kStep * r.pitch, ";");
}

// Stores one operand's registers into shared buffer `buf`, k rows by the tile's axis: a
// vector along the tile's axis in one store, one along k element by element.
void EmitStepStore(CodeWriter& w, const OperandReads& r, int tile, DType compute,
                   const std::string& buf) {
  if (r.async) return;  // copied there by EmitStepLoad
  const std::string& x = r.name;
  w.Line("#pragma unroll");
  auto each = w.Block("for (int u = 0; u < ", r.per_thread(tile), "; ++u)");
  EmitVectorPosition(w, r, tile);
  const std::string shared = absl::StrCat(x, "s[", buf, "]");
  if (r.k_major) {
    w.Line("#pragma unroll");
    w.Line("for (int j = 0; j < ", r.vec, "; ++j) ", shared, "[inner + j][outer] = r", x, "[u * ",
           r.vec, " + j];");
  } else if (r.vec * static_cast<int>(DTypeSize(compute)) == 16) {
    const bool f64 = compute == DType::kF64;
    std::string parts;
    for (int j = 0; j < r.vec; ++j)
      absl::StrAppend(&parts, j ? ", " : "", "r", x, "[u * ", r.vec, " + ", j, "]");
    w.Line("*(", f64 ? "double2" : "float4", "*)&", shared,
           "[outer][inner] = ", f64 ? "make_double2(" : "make_float4(", parts, ");");
  } else {
    w.Line("#pragma unroll");
    w.Line("for (int j = 0; j < ", r.vec, "; ++j) ", shared, "[outer][inner + j] = r", x, "[u * ",
           r.vec, " + j];");
  }
}

}  // namespace

KernelSource GenerateGemmSimt(const FusedKernel& kernel, const DynamicRows* rows) {
  KernelSource ks = NewKernelSource(kernel);
  const GemmProblem p = AnalyzeGemm(kernel, rows);
  ks.takes_rows = p.rows_argument;
  const int64_t n = p.n, k = p.k;
  const int tile = ChooseSimtTile(p), blocks = tile / 64;  // 4 x 4 blocks per thread and axis
  const DType compute = ComputeDType(p);
  const bool f64 = compute == DType::kF64;
  const std::string type = CudaComputeType(compute);
  const char* fma = f64 ? "fma" : "fmaf";
  const char* vec = f64 ? "double2" : "float4";  // 16 bytes
  const int per_vec = f64 ? 2 : 4;
  CodeWriter w;
  BeginSource(w, kernel, rows);
  const OperandReads ra = ReadsOf(p, true), rb = ReadsOf(p, false);
  {
    // 128-wide tiles: two blocks an SM (at most 128 registers a thread), so that one block's
    // loads and barriers hide under the other's FMAs (exact f32 4096³ on the H200: 61% of
    // cuBLAS SGEMM against 56% with one). Operands read element by element hold 8 addresses
    // and bounds each, more than fits beside the 64 accumulators: one block an SM then, said
    // explicitly (ptxas for sm_80 otherwise stops at 128 registers and spills).
    const bool two_blocks = blocks == 2 && ra.vec > 1 && rb.vec > 1;
    const std::string bounds =
        blocks == 2 ? absl::StrCat(kThreads, two_blocks ? ", 2" : ", 1") : absl::StrCat(kThreads);
    auto body = KernelBlock(w, bounds, kNamePlaceholder, ks);
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
    EmitReadSetup(w, ks, p, ra, tile);
    EmitReadSetup(w, ks, p, rb, tile);
    const int outputs = 16 * blocks * blocks;
    w.Line(type, " acc[", outputs, "] = {};");
    // Registers for the operands copied through them (none for `async` ones).
    auto registers = [&](const OperandReads& r) {
      if (!r.async) w.Line(type, " r", r.name, "[", tile * kStep / kThreads, "];");
    };
    registers(ra);
    registers(rb);
    auto load_step = [&](const std::string& k0, const std::string& buf) {
      EmitStepLoad(w, p, ra, tile, k0, buf);
      EmitStepLoad(w, p, rb, tile, k0, buf);
    };
    auto store_step = [&](const std::string& buf) {
      EmitStepStore(w, ra, tile, compute, buf);
      EmitStepStore(w, rb, tile, compute, buf);
    };
    // The step's copies have landed before the barrier that publishes its buffer.
    auto publish = [&] {
      if (ra.async || rb.async) w.Line("tessel_copy_async_wait_all();");
      w.Line("__syncthreads();");
    };
    load_step("0", "0");
    store_step("0");
    publish();
    // Two steps an iteration, one per buffer, so that the buffer is a constant of the code:
    // ptxas then keeps the whole step in 128 registers without spilling.
    {
      auto loop = w.Block("for (int k0 = 0; k0 < ", k, "; k0 += ", 2 * kStep, ")");
      w.Line("#pragma unroll");
      auto steps = w.Block("for (int buf = 0; buf < 2; ++buf)");
      w.Line("const int step = k0 + buf * ", kStep, ";");
      if (CeilDiv(k, kStep) % 2 != 0) w.Line("if (step >= ", k, ") break;");
      w.Line("const bool more = step + ", kStep, " < ", k, ";");
      {
        auto next = w.Block("if (more)");
        load_step(absl::StrCat("(step + ", kStep, ")"), "buf ^ 1");
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
      if (!ra.async || !rb.async) {
        auto next = w.Block("if (more)");
        store_step("buf ^ 1");
      }
      publish();
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
