#include "codegen/gemm_common.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/expr_emitter.h"
#include "codegen/gemm_staging.h"
#include "codegen/kernel_common.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {

GemmOperand OperandOf(const FusedKernel& kernel, const Node& operand) {
  auto is_input = [&](const Node& n) {
    return std::find(kernel.inputs.begin(), kernel.inputs.end(), &n) != kernel.inputs.end();
  };
  // Views computed in this program are read through to the memory below them (the planner
  // writes no copy: fusion/writes.cc); a realized view is a buffer like any other.
  GemmOperand o;
  o.buffer = &operand;
  while (!is_input(*o.buffer) && IsMatmulOperandView(*o.buffer)) {
    o.transposed ^= SwapsLastTwoAxes(*o.buffer);
    o.buffer = &o.buffer->input(0);
  }
  o.batch = BatchOf(operand.shape());
  return o;
}

Shape BatchOf(const Shape& s) {
  return Shape(absl::MakeConstSpan(s.dims()).subspan(0, s.rank() - 2));
}

namespace {

GemmProblem AnalyzeMatmul(const FusedKernel& kernel, const Node* matmul, const DynamicRows* rows) {
  GemmProblem p;
  p.matmul = matmul;
  p.a = OperandOf(kernel, p.matmul->input(0));
  p.b = OperandOf(kernel, p.matmul->input(1));
  const Shape& out = p.matmul->shape();
  p.m = out[out.rank() - 2];
  p.rows_argument = rows != nullptr && rows->Has(p.matmul);
  p.least_m = p.m;
  if (p.rows_argument) {
    p.m = rows->max;
    p.least_m = rows->min > 0 ? std::min(rows->min, rows->max) : rows->max;
  }
  p.m_expr = p.rows_argument ? "rows" : absl::StrCat(p.m);
  p.n = out[out.rank() - 1];
  p.k = p.matmul->input(0).shape()[p.matmul->input(0).shape().rank() - 1];
  p.k_argument = rows != nullptr && !p.rows_argument && rows->Has(p.a.buffer) && p.a.transposed;
  if (p.k_argument) p.k = rows->max;
  p.batch = BatchOf(out);
  p.split_tf32 = IsSplitTf32Matmul(*p.matmul);
  p.tf32 = IsTf32Matmul(*p.matmul) || p.split_tf32;
  PlanOperandStaging(p, StagingNeed::kRows);
  return p;
}

// The kernel's outputs that read `matmul` (through values computed in the kernel), and the
// kernel inputs those outputs read.
struct EpilogueCone {
  std::vector<const Node*> outputs;
  absl::flat_hash_set<const Node*> inputs;
};

EpilogueCone ConeOf(const KernelSource& ks, const Node* matmul, const Node* partner) {
  absl::flat_hash_map<const Node*, bool> reads;  // memo: whether a node reads the matmul
  absl::flat_hash_set<const Node*> kernel_inputs(ks.inputs.begin(), ks.inputs.end());
  auto walk = [&](auto& self, const Node* n) -> bool {
    if (n == matmul || n == partner) return true;
    if (kernel_inputs.contains(n)) return false;
    if (auto it = reads.find(n); it != reads.end()) return it->second;
    bool r = false;
    for (const NodePtr& in : n->inputs()) r = self(self, in.get()) || r;
    return reads[n] = r;
  };
  EpilogueCone cone;
  for (const Node* out : ks.outputs) {
    if (walk(walk, out)) cone.outputs.push_back(out);
  }
  // The inputs those outputs read (not through the matmuls: their operands are no epilogue's).
  std::vector<const Node*> stack = cone.outputs;
  absl::flat_hash_set<const Node*> seen(stack.begin(), stack.end());
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (kernel_inputs.contains(n)) cone.inputs.insert(n);
    if (kernel_inputs.contains(n) || n == matmul || n == partner) continue;
    for (const NodePtr& in : n->inputs()) {
      if (seen.insert(in.get()).second) stack.push_back(in.get());
    }
  }
  return cone;
}

}  // namespace

GemmProblem AnalyzeGemm(const FusedKernel& kernel, const DynamicRows* rows) {
  return AnalyzeMatmul(kernel, kernel.matmul, rows);
}

std::vector<GemmProblem> AnalyzeGemmParts(const FusedKernel& kernel, const DynamicRows* rows) {
  std::vector<GemmProblem> parts;
  for (const Node* matmul : kernel.gemm_parts) parts.push_back(AnalyzeMatmul(kernel, matmul, rows));
  if (parts.empty()) parts.push_back(AnalyzeGemm(kernel, rows));
  return parts;
}

std::string OperandMatrixIndex(const GemmOperand& operand, const Shape& out_batch,
                               const std::string& batch) {
  const IndexExpr b = Broadcast(FromLinear(out_batch, batch, false, 1), out_batch, operand.batch);
  return LinearOffset(b, operand.batch);
}

bool CallsWithStack(const FusedKernel& kernel) {
  for (const Node* n : kernel.nodes) {
    if (!n->inputs().empty() && CudaExprCallsWithStack(n->op(), n->input(0).dtype())) return true;
  }
  return false;
}

bool TensorCoreOperands(const GemmProblem& p) {
  const DType t = p.a.buffer->dtype();
  if (!(IsHalfFloat(t) || (t == DType::kF32 && p.tf32)) || p.b.buffer->dtype() != t) return false;
  return p.m > 0 && p.n > 0 && p.k > 0 && p.batch.numel() < (int64_t{1} << 31) / 4096;
}

bool GemmTakesRows(const FusedKernel& kernel, const DynamicRows& rows) {
  if (kernel.gemm_form == GemmForm::kGrouped) return false;  // each problem's rows in the source
  for (const GemmProblem& p : AnalyzeGemmParts(kernel)) {
    if (!rows.Has(p.matmul) || p.matmul->shape().rank() != 2 || !rows.Has(p.a.buffer) ||
        p.a.transposed || rows.Has(p.b.buffer)) {
      return false;
    }
  }
  for (const auto* list : {&kernel.nodes, &kernel.inputs, &kernel.outputs}) {
    for (const Node* n : *list) {
      if (rows.Has(n) && n->shape().rank() != 2) return false;
    }
  }
  return true;
}

bool GemmTakesRowsAsK(const FusedKernel& kernel, const DynamicRows& rows) {
  if (kernel.gemm_form != GemmForm::kSingle || kernel.matmul == nullptr) return false;
  const GemmProblem p = AnalyzeGemm(kernel);
  const Node* out = p.matmul;
  if (out->shape().rank() != 2 || rows.Has(out) || rows.fixed.contains(out) || !p.a.transposed ||
      p.b.transposed || !rows.Has(p.a.buffer) || !rows.Has(p.b.buffer) || p.a.staged ||
      p.b.staged || p.tf32 || p.a.buffer->shape().rank() != 2 || p.b.buffer->shape().rank() != 2) {
    return false;
  }
  // The values between the matmul and its operands' buffers, which it reads through.
  absl::flat_hash_set<const Node*> operands = {p.a.buffer, p.b.buffer};
  for (const Node* view : {&out->input(0), &out->input(1)}) {
    for (; view != p.a.buffer && view != p.b.buffer; view = &view->input(0)) operands.insert(view);
  }
  for (const auto* list : {&kernel.nodes, &kernel.inputs, &kernel.outputs}) {
    for (const Node* n : *list) {
      if ((rows.Has(n) || rows.fixed.contains(n)) && !operands.contains(n)) return false;
    }
  }
  // An epilogue that gathers or flips along the batch holds it in its index math.
  for (const Node* n : kernel.nodes) {
    if (rows.fixed_math.contains(n)) return false;
  }
  return true;
}

void SetGemmGrid(const GemmProblem& p, int64_t tile_m, int64_t tiles_n, Launch* launch) {
  launch->grid = {CeilDiv(p.m, tile_m) * tiles_n * p.batch.numel(), 1, 1};
  if (p.rows_argument) launch->rows_grid = RowsGrid{1, tile_m, tiles_n * p.batch.numel()};
}

void EmitOperandConfig(CodeWriter& w, const GemmProblem& p) {
  w.Line("static constexpr int N = ", p.n, ", K = ", p.k, ", BATCH = ", p.batch.numel(), ";");
  w.Line("static constexpr int LDA = ", p.a.pitch, ", LDB = ", p.b.pitch,
         ";  // operand rows as the mainloop reads them, in elements");
  w.Line("static constexpr bool A_MN = ", ReadsMnMajor(p.a, true) ? "true" : "false",
         ", B_MN = ", ReadsMnMajor(p.b, false) ? "true" : "false",
         ", F16 = ", p.a.buffer->dtype() == DType::kF16 ? "true" : "false", ";");
  w.Line("static __device__ int a_batch(int batch) { return ",
         OperandMatrixIndex(p.a, p.batch, "batch"), "; }");
  w.Line("static __device__ int b_batch(int batch) { return ",
         OperandMatrixIndex(p.b, p.batch, "batch"), "; }");
}

void EmitGemmEpilogue(CodeWriter& w, const KernelSource& ks, const GemmProblem& p,
                      const EpilogueSite& site) {
  const Shape& out = p.matmul->shape();
  const std::string column = absl::StrCat("(", site.col, " + ", site.lane_column, ")");
  std::vector<std::string> dims = FromLinear(p.batch, site.batch, false, 1).dims;
  std::vector<bool> lane(dims.size(), false);
  dims.push_back(site.row);
  dims.push_back(column);
  lane.push_back(false);
  lane.push_back(true);
  IndexExpr idx = FromDims(out, dims, lane);
  // A run starts at a column that is a multiple of its length: aligned vectors when every
  // row's length is a multiple of the vector's too.
  const int lanes = site.lanes;
  idx.vector_width = std::min(site.run > 0 ? site.run : lanes, 8);
  while (idx.vector_width > 1 && p.n % idx.vector_width != 0) idx.vector_width /= 2;
  if (!site.rows_inside) idx.thread_guard = absl::StrCat(site.row, " < ", p.m_expr);
  if (!site.cols_inside) idx.lane_guard = absl::StrCat(column, " < ", p.n);
  ExprEmitter e(&w, lanes, ks);
  if (!site.matmul_words.empty()) {
    e.PairHalves();
    e.Bind(p.matmul, idx, Value{site.matmul_words, true, p.matmul->dtype()});
    if (site.partner != nullptr) {
      e.Bind(site.partner, idx, Value{site.partner_words, true, site.partner->dtype()});
    }
  } else {
    const char* round = p.matmul->dtype() == DType::kBF16  ? "tessel_round_bf16"
                        : p.matmul->dtype() == DType::kF16 ? "tessel_round_f16"
                                                           : "";
    e.Bind(p.matmul, idx,
           e.Define("mm", CudaComputeType(p.matmul->dtype()), true,
                    absl::StrCat(round, "(", site.matmul_value, ")")));
  }
  // Inputs read element for element (a residual) are loaded first, so that their trips to
  // memory overlap the arithmetic instead of following it.
  const EpilogueCone cone = ConeOf(ks, p.matmul, site.partner);
  for (const Node* input : ks.inputs) {
    if (site.preload_inputs && input != p.a.buffer && input != p.b.buffer &&
        input->shape() == out && cone.inputs.contains(input)) {
      e.Get(input, idx);
    }
  }
  for (size_t o = 0; o < ks.outputs.size(); ++o) {
    if (std::find(cone.outputs.begin(), cone.outputs.end(), ks.outputs[o]) == cone.outputs.end()) {
      continue;  // another part's
    }
    e.Store(absl::StrCat("out", o), ks.outputs[o], idx, e.Get(ks.outputs[o], idx));
  }
}

}  // namespace tessel::codegen
