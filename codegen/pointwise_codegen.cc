// Pointwise kernels: each thread handles VEC consecutive elements per step (16-byte vector
// accesses where the data is contiguous), looping over the space with the grid's stride.
// Several iteration spaces ("segments") share one launch by splitting the blocks.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"

namespace tessel::codegen {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocksPerSegment = 2048;

std::vector<const Node*> SegmentOutputs(const FusedKernel& kernel, const Shape& shape) {
  std::vector<const Node*> out;
  for (const Node* n : kernel.outputs) {
    if (n->shape() == shape) out.push_back(n);
  }
  return out;
}

// Elements per thread per step. Light kernels (a few operations per element) want more
// bytes in flight per thread: two 16-byte accesses of the widest type; heavy ones one, which
// keeps registers low (measured on H100: 64 updates 55% -> 80% of copy with two; a
// transcendental chain 89% -> 82%).
int VectorWidth(const FusedKernel& kernel, const std::vector<const Node*>& outputs) {
  int64_t widest = 1;
  for (const Node* n : outputs) widest = std::max(widest, DTypeSize(n->dtype()));
  int ops = 0;
  for (const Node* n : kernel.nodes) {
    ops += GetOpInfo(n->op()).category == OpCategory::kElementwise ? 1 : 0;
  }
  const bool light = ops <= 3 * static_cast<int>(kernel.outputs.size());
  // Double math (exp, tanh: long inline sequences) over even two lanes defeats unrolling, and
  // the lanes' arrays go to local memory (ptxas spills sigmoid's): one 8-byte element per
  // step. Not measured on the GPU yet; a warp still reads 256 contiguous bytes per access.
  if (widest == 8) return 1;
  const int64_t bytes = light ? 32 : 16;
  return static_cast<int>(std::min<int64_t>(16, bytes / widest));
}

void EmitStores(ExprEmitter& e, const KernelSource& ks, const std::vector<const Node*>& outputs,
                const IndexExpr& idx) {
  for (const Node* out : outputs) {
    e.Store(absl::StrCat("out", OutputSlot(ks, out)), out, idx, e.Get(out, idx));
  }
}

// `rows`: the leading extent is the kernel's rows argument.
void EmitSegment(CodeWriter& w, const KernelSource& ks, const Shape& shape,
                 const std::vector<const Node*>& outputs, int vec, const std::string& block,
                 const std::string& blocks, bool rows) {
  const int64_t rest = rows ? shape.numel() / shape[0] : shape.numel();
  if (rows) {
    Shape::Dims dims = shape.dims();
    dims.erase(dims.begin());
    w.Line("// [rows, ", Shape(dims).ToString().substr(1), ": rows x ", rest, " elements, ", vec,
           " per thread per step");
    w.Line("const index_t n = (index_t)rows * ", rest, ";");
  } else {
    w.Line("// ", shape.ToString(), ": ", shape.numel(), " elements, ", vec,
           " per thread per step");
    w.Line("const index_t n = ", shape.numel(), ";");
  }
  w.Line("const index_t stride = (index_t)", blocks, " * ", kThreads * vec, ";");
  auto loop = w.Block("for (index_t i = ((index_t)", block, " * ", kThreads, " + threadIdx.x) * ",
                      vec, "; i < n; i += stride)");
  {
    auto full = w.Block("if (i + ", vec, " <= n)");
    ExprEmitter e(&w, vec, ks);
    EmitStores(e, ks, outputs, FromLinear(shape, "(i + k)", true, vec));
  }
  if (rest % vec == 0) return;  // every n is a multiple of vec
  auto tail = w.Block("else");
  auto each = w.Block("for (index_t t = i; t < n; ++t)");
  ExprEmitter e(&w, 1, ks);
  EmitStores(e, ks, outputs, FromLinear(shape, "t", false, 1));
}

}  // namespace

bool PointwiseTakesRows(const FusedKernel& kernel, const DynamicRows& rows) {
  if (kernel.segments.size() != 1) return false;
  for (const Node* out : kernel.outputs) {
    if (!rows.Has(out)) return false;
  }
  return true;
}

KernelSource GeneratePointwise(const FusedKernel& kernel, const DynamicRows* rows) {
  const TransposedAxes axes = TransposeTiles(kernel);
  // (A dynamic leading axis must be a proper one: the tiles' order leaves out extent-1 axes.)
  if (axes.Tiled() && (rows == nullptr || kernel.segments[0][0] > 1)) {
    return GenerateTransposed(kernel, axes, rows);
  }
  KernelSource ks = NewKernelSource(kernel);
  ks.takes_rows = rows != nullptr;
  CodeWriter w;
  BeginSource(w, kernel, rows);
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.block = kThreads;
  {
    auto body = KernelBlock(w, absl::StrCat(kThreads), kNamePlaceholder, ks);
    if (kernel.segments.size() == 1) {
      const Shape& shape = kernel.segments[0];
      const std::vector<const Node*> outputs = SegmentOutputs(kernel, shape);
      const int vec = VectorWidth(kernel, outputs);
      launch.grid[0] = (shape.numel() + kThreads * vec - 1) / (kThreads * vec);
      if (rows != nullptr) launch.rows_grid = RowsGrid{shape.numel() / shape[0], kThreads * vec, 1};
      EmitSegment(w, ks, shape, outputs, vec, "blockIdx.x", "gridDim.x", rows != nullptr);
    } else {
      int64_t first = 0;
      for (const Shape& shape : kernel.segments) {
        const std::vector<const Node*> outputs = SegmentOutputs(kernel, shape);
        const int vec = VectorWidth(kernel, outputs);
        const int64_t blocks = std::clamp<int64_t>(
            (shape.numel() + kThreads * vec - 1) / (kThreads * vec), 1, kMaxBlocksPerSegment);
        auto segment = first == 0 ? w.Block("if (blockIdx.x < ", blocks, ")")
                                  : w.Block("if (blockIdx.x >= ", first, " && blockIdx.x < ",
                                            first + blocks, ")");
        w.Line("const index_t block = (index_t)blockIdx.x - ", first, ";");
        EmitSegment(w, ks, shape, outputs, vec, "block", absl::StrCat(blocks), false);
        first += blocks;
      }
      launch.grid[0] = first;
    }
  }
  ks.launches.push_back(launch);
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
