// Scatter kernels: scatter_add(x, axis, index, src) without atomics. The index's lines along
// the axis come with their stable order (an argsort the op records on CUDA: the fourth
// input), so equal targets sit together in it, in increasing position. A first launch copies
// x; then a thread per (line, sorted position) that starts a run of equal targets adds the
// run's src values to x's value in that order, accumulating as the CPU backend does (double
// for floats, wrapping int64): the same bits on both devices and from run to run.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"

namespace tessel::codegen {
namespace {

constexpr int kThreads = 256;

class ScatterWriter {
 public:
  ScatterWriter(CodeWriter& w, const KernelSource& ks, const Node& scatter)
      : w_(w), ks_(ks), scatter_(scatter), axis_(static_cast<int>(scatter.attrs().ints.at(0))) {
    const Shape& index = scatter.input(1).shape();
    for (int d = 0; d < index.rank(); ++d) {
      (d < axis_ ? outer_ : d == axis_ ? along_ : inner_) *= index[d];
    }
  }

  int64_t Threads() const { return outer_ * along_ * inner_; }

  void Copy() {
    const Shape& shape = scatter_.shape();
    w_.Line("const index_t i = (index_t)blockIdx.x * ", kThreads, " + threadIdx.x;");
    w_.Line("if (i >= ", shape.numel(), ") return;");
    ExprEmitter emitter(&w_, 1, ks_);
    const IndexExpr at = FromLinear(shape, "i", false, 1);
    emitter.Store("out0", &scatter_, at, emitter.Get(&scatter_.input(0), at));
  }

  void Runs() {
    const RunningValue acc = RunningValueOf(scatter_.dtype(), false);
    w_.Line("const long long t = (long long)blockIdx.x * ", kThreads, " + threadIdx.x;");
    w_.Line("if (t >= ", Threads(), "LL) return;");
    // Neighbouring threads take neighbouring inner positions: the order's loads coalesce.
    w_.Line("const long long i = t % ", inner_, ", m = t / ", inner_, " % ", along_, ", o = t / ",
            inner_ * along_, ";");
    w_.Line("const long long from = Sorted(o, m, i);");
    w_.Line("const long long target = Target(o, from, i);");
    w_.Line("if (m > 0 && Target(o, Sorted(o, m - 1, i), i) == target) return;");
    if (IndexCheckSlot(ks_, &scatter_) >= 0) {  // not where the index is known in range
      auto bad = w_.Block("if (target < 0 || target >= ", scatter_.shape()[axis_], ")");
      w_.Line("tessel_report_index(bad + ", 3 * IndexCheckSlot(ks_, &scatter_), ", (o * ", along_,
              " + from) * ", inner_, " + i, target);");
      w_.Line("return;");
    }
    w_.Line(acc.type, " sum = (", acc.type, ")X(o, target, i);");
    {
      auto run = w_.Block("for (long long r = m; r < ", along_, "; ++r)");
      w_.Line("const long long at = Sorted(o, r, i);");
      w_.Line("if (Target(o, at, i) != target) break;");
      w_.Line("sum = ", acc.Combine("sum", absl::StrCat("(", acc.type, ")Src(o, at, i)")), ";");
    }
    const IndexExpr out = Position(scatter_.shape(), "target");
    w_.Line("out0[", LinearOffset(out, scatter_.shape()),
            "] = ", StoreAccumulated(scatter_.dtype(), "sum"), ";");
  }

  // Device lambdas reading x, the index, src and the order at (o, a, i): emitted first in
  // the entry, each a fresh scope for the expression emitter.
  void Readers() {
    Reader("X", scatter_.input(0));
    Reader("Target", scatter_.input(1));
    Reader("Src", scatter_.input(2));
    Reader("Sorted", scatter_.input(3));
  }

 private:
  // The position whose axis coordinate is `a` and whose other coordinates come from (o, i)
  // in the index's shape (no larger than `shape` on those axes).
  IndexExpr Position(const Shape& shape, const std::string& a) const {
    const Shape& index = scatter_.input(1).shape();
    std::vector<std::string> dims(shape.rank());
    int64_t outer_stride = outer_, inner_stride = inner_;
    for (int d = 0; d < shape.rank(); ++d) {
      if (d == axis_) {
        dims[d] = a;
        continue;
      }
      int64_t& stride = d < axis_ ? outer_stride : inner_stride;
      stride /= index[d];
      const std::string scaled = stride == 1
                                     ? (d < axis_ ? "o" : "i")
                                     : absl::StrCat("(", d < axis_ ? "o" : "i", " / ", stride, ")");
      dims[d] = absl::StrCat("(index_t)(", scaled, " % ", index[d], ")");
    }
    return FromDims(shape, dims, std::vector<bool>(shape.rank(), false));
  }

  // `auto name = [&](o, a, i)`: the node's value there, as the accumulator's type for x and
  // src (double holds every float exactly) and as long long for positions.
  void Reader(const char* name, const Node& node) {
    const char* type = IsFloating(node.dtype()) ? "double" : "long long";
    w_.Line("auto ", name, " = [&](long long o, long long a, long long i) -> ", type, " {");
    CodeWriter::Scope body(&w_, "};");
    ExprEmitter emitter(&w_, 1, ks_);
    const Value v = emitter.Get(&node, Position(node.shape(), "(index_t)a"));
    w_.Line("return (", type, ")", v.At(), ";");
  }

  CodeWriter& w_;
  const KernelSource& ks_;
  const Node& scatter_;
  const int axis_;
  int64_t outer_ = 1, along_ = 1, inner_ = 1;
};

}  // namespace

KernelSource GenerateScatter(const FusedKernel& kernel) {
  KernelSource ks = NewKernelSource(kernel);
  const Node& scatter = *kernel.outputs.at(0);
  CodeWriter w;
  ScatterWriter writer(w, ks, scatter);
  BeginSource(w, kernel);
  const std::string copy = absl::StrCat(kNamePlaceholder, "_copy");
  {
    auto body = KernelBlock(w, absl::StrCat(kThreads), copy, ks);
    writer.Copy();
  }
  Launch first;
  first.entry = copy;
  first.grid[0] = (scatter.shape().numel() + kThreads - 1) / kThreads;
  ks.launches = {first};
  // An empty index adds nothing (and has no lines to address): the copy is the result.
  if (writer.Threads() > 0) {
    w.Blank();
    auto body = KernelBlock(w, absl::StrCat(kThreads), kNamePlaceholder, ks);
    writer.Readers();
    writer.Runs();
    Launch runs;
    runs.entry = kNamePlaceholder;
    runs.grid[0] = (writer.Threads() + kThreads - 1) / kThreads;
    ks.launches.push_back(runs);
  }
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
