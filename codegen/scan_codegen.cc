// Scan kernels: running sums and products along one axis, the shape seen as [outer, along,
// inner]. Values accumulate as the CPU backend's do (double for floats, wrapping 64-bit
// integers otherwise) in a fixed order, so the same input gives the same bits.
//
// Contiguous lines (inner = 1): a block per line walks it in tiles of 256 x kLanes values;
// each thread scans its lanes, the block scans the threads' totals, and a carry crosses the
// tiles. Strided lines (inner > 1): a thread per line, reading along the axis while
// neighbouring threads read neighbouring lines (coalesced). Few long lines (one line of 2^28)
// get one block or few threads: a chained multi-block scan is not built yet. The plan for it
// keeps the bits fixed: tiles take ids in launch order (an atomic counter), publish their
// totals, and group G tiles; a tile's prefix is the previous group's inclusive prefix plus
// the totals of the earlier tiles of its own group, summed in a fixed order, and the last
// tile of each group publishes the group's inclusive prefix. The chain then advances one
// group (G tiles of reading) per hop instead of one tile, which is what a decoupled
// look-back that stops wherever a prefix happens to be ready cannot promise.
#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"

namespace tessel::codegen {
namespace {

constexpr int kThreads = 256;
constexpr int kLanes = 4;

struct Lines {
  int64_t outer = 1, along = 1, inner = 1;
};

Lines LinesOf(const Node& scan) {
  const int axis = static_cast<int>(scan.attrs().ints.at(0));
  Lines l;
  for (int d = 0; d < scan.shape().rank(); ++d) {
    (d < axis ? l.outer : d == axis ? l.along : l.inner) *= scan.shape()[d];
  }
  return l;
}

// How the running value accumulates: its type, identity and combination.
struct Running {
  const char* type;      // double or long long
  std::string identity;  // 0 or 1 of that type
  std::string op;        // the tessel_*_op functor
  std::string Combine(const std::string& a, const std::string& b) const {
    return absl::StrCat(op, "(", a, ", ", b, ")");
  }
};

Running RunningOf(const Node& scan) {
  const bool sum = scan.op() == OpKind::kCumsum;
  if (IsFloating(scan.dtype())) {
    return Running{"double", sum ? "0.0" : "1.0", sum ? "tessel_sum_op()" : "tessel_prod_op()"};
  }
  return Running{"long long", sum ? "(long long)0" : "(long long)1",
                 sum ? "tessel_isum_op()" : "tessel_iprod_op()"};
}

// The running value `acc` stored as the scan's dtype.
std::string Stored(const Node& scan, const std::string& acc) {
  const DType t = scan.dtype();
  if (t == DType::kF64 || t == DType::kI64) return StoreConvert(t, acc);
  return StoreConvert(t, absl::StrCat("(float)", acc));
}

void EmitLines(CodeWriter& w, const KernelSource& ks, const Node& scan, const Lines& e,
               const Running& r) {
  const int vec = e.along % kLanes == 0 ? kLanes : 1;
  w.Line("// ", e.outer, " lines of ", e.along, ": a block per line, tiles of ", kThreads, " x ",
         kLanes);
  w.Line("__shared__ ", r.type, " scratch[32];");
  w.Line("const index_t line = blockIdx.x;");
  w.Line(r.type, " carry = ", r.identity, ";");
  auto tiles =
      w.Block("for (index_t tile = 0; tile < ", e.along, "; tile += ", kThreads * kLanes, ")");
  w.Line("const index_t col = tile + (index_t)threadIdx.x * ", kLanes, ";");
  const std::string guard = absl::StrCat("col + k < ", e.along);
  IndexExpr idx =
      FromLinear(scan.shape(), absl::StrCat("(line * ", e.along, " + col + k)"), true, vec);
  idx.lane_guard = guard;
  ExprEmitter emitter(&w, kLanes, ks);
  const Value v = emitter.Get(&scan.input(0), idx);
  w.Line(r.type, " run[", kLanes, "], total = ", r.identity, ";");
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", kLanes, "; ++k) {");
  w.Line("  if (", guard, ") total = ", r.Combine("total", absl::StrCat("(", r.type, ")", v.At())),
         ";");
  w.Line("  run[k] = total;");
  w.Line("}");
  w.Line(r.type, " block_total;");
  w.Line("const ", r.type, " before = ",
         r.Combine("carry", absl::StrCat("tessel_block_exclusive_scan(total, ", r.op, ", ",
                                         r.identity, ", scratch, &block_total)")),
         ";");
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", kLanes, "; ++k) if (", guard, ") out0[line * ", e.along,
         " + col + k] = ", Stored(scan, r.Combine("before", "run[k]")), ";");
  w.Line("carry = ", r.Combine("carry", "block_total"), ";");
}

void EmitColumns(CodeWriter& w, const KernelSource& ks, const Node& scan, const Lines& e,
                 const Running& r) {
  w.Line("// ", e.outer * e.inner, " lines of ", e.along, " (stride ", e.inner,
         "): a thread per line");
  w.Line("const index_t c = (index_t)blockIdx.x * ", kThreads, " + threadIdx.x;");
  w.Line("if (c >= ", e.outer * e.inner, ") return;");
  w.Line("const index_t first = c / ", e.inner, " * ", e.along * e.inner, " + c % ", e.inner, ";");
  w.Line(r.type, " acc = ", r.identity, ";");
  auto along = w.Block("for (index_t a = 0; a < ", e.along, "; ++a)");
  w.Line("const index_t at = first + a * ", e.inner, ";");
  ExprEmitter emitter(&w, 1, ks);
  const Value v = emitter.Get(&scan.input(0), FromLinear(scan.shape(), "at", false, 1));
  w.Line("acc = ", r.Combine("acc", absl::StrCat("(", r.type, ")", v.At())), ";");
  w.Line("out0[at] = ", Stored(scan, "acc"), ";");
}

}  // namespace

KernelSource GenerateScan(const FusedKernel& kernel) {
  KernelSource ks = NewKernelSource(kernel);
  const Node& scan = *kernel.outputs.at(0);
  const Lines e = LinesOf(scan);
  const Running r = RunningOf(scan);
  CodeWriter w;
  BeginSource(w, kernel);
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.block = kThreads;
  {
    auto body = w.Block("extern \"C\" __global__ void __launch_bounds__(", kThreads, ") ",
                        kNamePlaceholder, "(", ParameterList(ks), ")");
    if (e.inner == 1) {
      EmitLines(w, ks, scan, e, r);
      launch.grid[0] = e.outer;
    } else {
      EmitColumns(w, ks, scan, e, r);
      launch.grid[0] = (e.outer * e.inner + kThreads - 1) / kThreads;
    }
  }
  ks.launches.push_back(launch);
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
