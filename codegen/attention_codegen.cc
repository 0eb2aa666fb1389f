// Attention (fusion/attention.h) on the device library's tessel_attention_sm80: the generator
// writes the configuration, f (the work between the scores and the softmax, evaluated on each
// score tile in registers) and the output's store. Extents are in the source.
#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/gemm_common.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

constexpr int kQueryTile = 64, kKeyTile = 64;  // tessel_attention_sm80_layout's BQ, BK

// The position (row, col) of `shape` for batch entry `batch` (the flattened batch axes).
IndexExpr AtRowColumn(const Shape& shape, const std::string& row, const std::string& col) {
  std::vector<std::string> dims = FromLinear(BatchOf(shape), "batch", false, 1).dims;
  std::vector<bool> lane(dims.size(), false);
  dims.push_back(row);
  dims.push_back(col);
  lane.push_back(false);
  lane.push_back(true);
  return FromDims(shape, dims, lane);
}

// The round of a matmul's f32 value to its dtype, as the unfused kernels store it.
std::string Rounded(const Node* matmul, const std::string& value) {
  switch (matmul->dtype()) {
    case DType::kBF16:
      return absl::StrCat("tessel_round_bf16(", value, ")");
    case DType::kF16:
      return absl::StrCat("tessel_round_f16(", value, ")");
    default:
      return value;
  }
}

// f on a warp's score tile: rows g and g + 8 (h), each 16 lanes k at key 8 (k / 2) + 2 t + k % 2
// of s[k / 2][2 h + k % 2]; keys past S_K and rows past S_Q read nothing.
void EmitScore(CodeWriter& w, const KernelSource& ks, const FusedKernel& kernel) {
  const Shape& shape = kernel.scores->shape();
  const int64_t sq = shape[shape.rank() - 2], sk = shape[shape.rank() - 1];
  w.Line("[&](float (&s)[", kKeyTile / 8, "][4], int row0, int key0) {");
  CodeWriter::Scope lambda(&w, "},");
  for (int h = 0; h < 2; ++h) {
    w.Line("{  // row g", h == 0 ? "" : " + 8");  // each row's values are its own
    CodeWriter::Scope half(&w, "}");
    const std::string row = absl::StrCat("(row0 + g + ", 8 * h, ")");
    IndexExpr idx = AtRowColumn(shape, row, "(key0 + 8 * (k / 2) + 2 * t + k % 2)");
    idx.thread_guard = absl::StrCat(row, " < ", sq);
    idx.lane_guard = absl::StrCat("(key0 + 8 * (k / 2) + 2 * t + k % 2) < ", sk);
    ExprEmitter e(&w, 16, ks);
    e.Bind(kernel.scores, idx,
           e.Define("scores", "float", true,
                    Rounded(kernel.scores, absl::StrCat("s[k / 2][", 2 * h, " + k % 2]"))));
    const Value logits = e.Get(kernel.logits, idx);
    w.Line("#pragma unroll");
    w.Line("for (int k = 0; k < 16; ++k) s[k / 2][", 2 * h, " + k % 2] = ", logits.At(), ";");
  }
}

// The normalized output o[j][2 h + e] at row row0 + g + 8 h, column 8 j + 2 t + e, through
// the store (and any output the kernel writes there).
void EmitOutput(CodeWriter& w, const KernelSource& ks, const FusedKernel& kernel, int64_t d) {
  const Node* out = kernel.matmul;
  const Shape& shape = out->shape();
  GemmProblem p;  // the output matmul as the GEMM epilogue sees it
  p.matmul = out;
  p.batch = BatchOf(shape);
  p.m = shape[shape.rank() - 2];
  p.m_expr = absl::StrCat(p.m);
  p.n = d;
  p.a = OperandOf(kernel, out->input(0));
  p.b = OperandOf(kernel, out->input(1));
  w.Line("[&](float (&o)[", d / 8, "][4], int row0) {");
  CodeWriter::Scope lambda(&w, "});");
  for (int h = 0; h < 2; ++h) {
    w.Line("{  // row g", h == 0 ? "" : " + 8");
    CodeWriter::Scope half(&w, "}");
    EpilogueSite site(static_cast<int>(d / 4), "batch", absl::StrCat("(row0 + g + ", 8 * h, ")"),
                      "2 * t");
    site.matmul_value = absl::StrCat("o[k / 2][", 2 * h, " + k % 2]");
    site.lane_column = "8 * (k / 2) + k % 2";
    site.run = 2;
    site.rows_inside = p.m % kQueryTile == 0;
    site.cols_inside = true;
    site.preload_inputs = false;  // q, k, v and f's inputs are the kernel's other inputs
    EmitGemmEpilogue(w, ks, p, site);
  }
}

}  // namespace

KernelSource GenerateAttention(const FusedKernel& kernel) {
  KernelSource ks = NewKernelSource(kernel);
  const Node* scores = kernel.scores;
  const GemmOperand q = OperandOf(kernel, scores->input(0));
  const GemmOperand k = OperandOf(kernel, scores->input(1));
  const GemmOperand v = OperandOf(kernel, kernel.matmul->input(1));
  const Shape& s = scores->shape();
  const int64_t sq = s[s.rank() - 2], sk = s[s.rank() - 1];
  const int64_t d = q.buffer->shape()[q.buffer->shape().rank() - 1];
  const Shape batch = BatchOf(kernel.matmul->shape());
  const bool f16 = q.buffer->dtype() == DType::kF16;
  CodeWriter w;
  BeginSource(w, kernel);
  w.Line("#include \"tessel/attention_sm80.cuh\"");
  w.Blank();
  w.Line("// softmax(f(q k^T)) v: q [", sq, " x ", d, "], k and v [", sk, " x ", d, "], batch of ",
         batch.numel());
  {
    w.Line("struct attention_config {");
    CodeWriter::Scope config(&w, "};");
    w.Line("static constexpr int D = ", d, ", SQ = ", sq, ", SK = ", sk,
           ", BATCH = ", batch.numel(), ";");
    w.Line("static constexpr bool F16 = ", f16 ? "true" : "false", ";");
    w.Line("typedef ", f16 ? "f16_t" : "bf16_t", " T;");
    w.Line("static __device__ long long q_batch(int batch) { return ",
           OperandMatrixIndex(q, batch, "batch"), "; }");
    w.Line("static __device__ long long k_batch(int batch) { return ",
           OperandMatrixIndex(k, batch, "batch"), "; }");
    w.Line("static __device__ long long v_batch(int batch) { return ",
           OperandMatrixIndex(v, batch, "batch"), "; }");
  }
  w.Blank();
  {
    auto body = KernelBlock(w, "128", kNamePlaceholder, ks);
    w.Line("const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;");
    w.Line("const index_t batch = blockIdx.y;");
    w.Line("tessel_attention_sm80<attention_config>(", PointerName(ks, q.buffer), ", ",
           PointerName(ks, k.buffer), ", ", PointerName(ks, v.buffer), ",");
    EmitScore(w, ks, kernel);
    EmitOutput(w, ks, kernel, d);
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.grid = {CeilDiv(sq, kQueryTile), std::max<int64_t>(1, batch.numel()), 1};
  launch.block = 128;
  // Q, two K and two V tiles of rows padded by 8 elements (tessel_attention_sm80_layout).
  launch.shared_bytes = (kQueryTile + 4 * kKeyTile) * (d + 8) * 2;
  ks.launches.push_back(launch);
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
