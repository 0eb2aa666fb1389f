// GEMM kernels: a plain tiled kernel (64x64 tiles, 16x16 threads with 4x4 outputs each,
// operands staged through shared memory in float) whose epilogue is any elementwise graph,
// printed by the expression emitter on the accumulators. Correct for every shape, dtype and
// batch broadcast; the tensor-core kernels of issue 4 replace its mainloop.
#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"

namespace tessel::codegen {
namespace {

constexpr int kTile = 64, kStep = 16, kThreads = 256;

Shape BatchOf(const Shape& s) {
  return Shape(absl::MakeConstSpan(s.dims()).subspan(0, s.rank() - 2));
}

// The operand's first element for output batch entry `batch` (broadcast batch axes).
std::string OperandBase(const Node& operand, const Shape& out, int64_t matrix) {
  const IndexExpr b = Broadcast(FromLinear(BatchOf(out), "batch", false, 1), BatchOf(out),
                                BatchOf(operand.shape()));
  return absl::StrCat("(index_t)", LinearOffset(b, BatchOf(operand.shape())), " * ", matrix);
}

}  // namespace

KernelSource GenerateGemm(const FusedKernel& kernel) {
  KernelSource ks = NewKernelSource(kernel);
  const Node* mm = kernel.matmul;
  const Node& a = mm->input(0);
  const Node& b = mm->input(1);
  const Shape& out = mm->shape();
  const int64_t m = out[out.rank() - 2], n = out[out.rank() - 1];
  const int64_t k = a.shape()[a.shape().rank() - 1];
  const std::string pa = PointerName(ks, &a), pb = PointerName(ks, &b);
  CodeWriter w;
  BeginSource(w, kernel);
  {
    auto body = w.Block("extern \"C\" __global__ void __launch_bounds__(", kThreads, ") ",
                        kNamePlaceholder, "(", ParameterList(ks), ")");
    w.Line("// [", m, " x ", k, "] x [", k, " x ", n, "], ", BatchOf(out).numel(),
           " batch entries");
    w.Line("__shared__ float As[", kStep, "][", kTile + 4, "];");
    w.Line("__shared__ float Bs[", kStep, "][", kTile + 4, "];");
    w.Line("const index_t batch = blockIdx.z;");
    w.Line("const int m0 = blockIdx.y * ", kTile, ", n0 = blockIdx.x * ", kTile, ";");
    w.Line("const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;");
    w.Line("const ", StorageType(a.dtype()), "* A = ", pa, " + ", OperandBase(a, out, m * k), ";");
    w.Line("const ", StorageType(b.dtype()), "* B = ", pb, " + ", OperandBase(b, out, k * n), ";");
    w.Line("float acc[16] = {};");
    {
      auto loop = w.Block("for (int k0 = 0; k0 < ", k, "; k0 += ", kStep, ")");
      {
        auto load =
            w.Block("for (int i = threadIdx.x; i < ", kTile * kStep, "; i += ", kThreads, ")");
        w.Line("const int r = i / ", kStep, ", c = i % ", kStep, ";");
        w.Line("As[c][r] = (m0 + r < ", m, " && k0 + c < ", k, ") ? ",
               LoadConvert(a.dtype(), absl::StrCat("A[(index_t)(m0 + r) * ", k, " + k0 + c]")),
               " : 0.0f;");
        w.Line("const int kr = i / ", kTile, ", nc = i % ", kTile, ";");
        w.Line("Bs[kr][nc] = (k0 + kr < ", k, " && n0 + nc < ", n, ") ? ",
               LoadConvert(b.dtype(), absl::StrCat("B[(index_t)(k0 + kr) * ", n, " + n0 + nc]")),
               " : 0.0f;");
      }
      w.Line("__syncthreads();");
      w.Line("#pragma unroll");
      {
        auto inner = w.Block("for (int kk = 0; kk < ", kStep, "; ++kk)");
        w.Line("float av[4], bv[4];");
        w.Line("#pragma unroll");
        w.Line("for (int i = 0; i < 4; ++i) av[i] = As[kk][ty * 4 + i];");
        w.Line("#pragma unroll");
        w.Line("for (int j = 0; j < 4; ++j) bv[j] = Bs[kk][tx * 4 + j];");
        w.Line("#pragma unroll");
        w.Line("for (int t = 0; t < 16; ++t) acc[t] += av[t / 4] * bv[t % 4];");
      }
      w.Line("__syncthreads();");
    }
    // The epilogue: lane k is output (m0 + ty*4 + k/4, n0 + tx*4 + k%4).
    std::vector<std::string> dims = FromLinear(BatchOf(out), "batch", false, 1).dims;
    std::vector<bool> lane(dims.size(), false);
    dims.push_back("(m0 + ty * 4 + k / 4)");
    dims.push_back("(n0 + tx * 4 + k % 4)");
    lane.push_back(true);
    lane.push_back(true);
    IndexExpr idx = FromDims(out, dims, lane);
    idx.guard = absl::StrCat(dims[dims.size() - 2], " < ", m, " && ", dims.back(), " < ", n);
    ExprEmitter e(&w, 16, PointerNames(ks));
    const char* round = mm->dtype() == DType::kBF16  ? "tessel_round_bf16(acc[k])"
                        : mm->dtype() == DType::kF16 ? "tessel_round_f16(acc[k])"
                                                     : "acc[k]";
    e.Bind(mm, idx, e.Define("mm", "float", true, round));
    for (size_t o = 0; o < ks.outputs.size(); ++o) {
      const Value v = e.Get(ks.outputs[o], idx);
      w.Line("#pragma unroll");
      w.Line("for (int k = 0; k < 16; ++k) if (", idx.guard, ") out", o, "[",
             LinearOffset(idx, out), "] = ", StoreConvert(ks.outputs[o]->dtype(), v.At()), ";");
    }
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.grid = {(n + kTile - 1) / kTile, (m + kTile - 1) / kTile, BatchOf(out).numel()};
  launch.block = kThreads;
  ks.launches.push_back(launch);
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
