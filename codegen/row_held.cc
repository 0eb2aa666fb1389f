// Normalizations over many rows too long for a block's registers (FusedKernel::held_row_bytes):
// a block per row, the row's inputs copied once into shared memory by 16-byte copies; each
// reduction, then the stores, sweep the row from there, kVectorsPerStep vectors a thread at a
// time, recomputing the row's expressions from the held values. The
// alternative was two kernels, each reading the row from memory (the reductions streamed,
// then the normalization's own kernel): H200 lab, bf16 softmax over 1024 rows of 32768, one
// block of 256 threads a row at 3.6 TB/s against 1.9 (bench/RESULTS.md, fifty-fifth session).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/kernel_common.h"
#include "codegen/row_common.h"

namespace tessel::codegen {
namespace {

constexpr int kThreads = 256;
// Vectors a thread and step: 32 bf16 values (the lab's steps).
constexpr int kVectorsPerStep = 4;

// The inputs along the row held in the block's shared memory, each `offset` bytes into it
// (`bytes` in all); the others are read from memory where a sweep needs them.
struct HeldRow {
  struct Input {
    const Node* node;
    int64_t offset;
  };
  std::vector<Input> inputs;
  int64_t bytes = 0;
};

// The kernel's inputs that its reductions read (every sweep but the stores' may read them).
absl::flat_hash_set<const Node*> ReadByReductions(const FusedKernel& k, const KernelSource& ks,
                                                  const std::vector<Accumulator>& accs) {
  const absl::flat_hash_set<const Node*> inputs(ks.inputs.begin(), ks.inputs.end());
  const absl::flat_hash_set<const Node*> computed(k.nodes.begin(), k.nodes.end());
  absl::flat_hash_set<const Node*> seen, read;
  std::vector<const Node*> stack;
  for (const Accumulator& a : accs) stack.push_back(&a.reduction->input(0));
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (inputs.contains(n)) {
      read.insert(n);
    } else if (computed.contains(n)) {
      for (const NodePtr& in : n->inputs()) stack.push_back(in.get());
    }
  }
  return read;
}

// Those the reductions read first, while they fit the kernel's held_row_bytes; then those
// only the stores read, while the block keeps to kStoresOnlyBytes (two blocks an SM on sm_90):
// a value read once gains only its copy's head start from being held, not an SM's blocks
// (where the reductions' inputs alone pass 96 KB, one block an SM either way: not measured).
constexpr int64_t kStoresOnlyBytes = 96 * 1024;

HeldRow HeldInputs(const FusedKernel& k, const KernelSource& ks, const RowLayout& l,
                   const std::vector<Accumulator>& accs) {
  const absl::flat_hash_set<const Node*> first = ReadByReductions(k, ks, accs);
  HeldRow held;
  for (const bool by_reductions : {true, false}) {
    const int64_t budget =
        by_reductions ? k.held_row_bytes : std::min(k.held_row_bytes, kStoresOnlyBytes);
    for (const Node* n : ks.inputs) {
      if (n->shape() != l.space || first.contains(n) != by_reductions) continue;
      const int64_t bytes = HeldRowBytes(l.length, n->dtype());
      if (held.bytes + bytes > budget) continue;
      held.inputs.push_back({n, held.bytes});
      held.bytes += bytes;
    }
  }
  return held;
}

std::string HeldName(size_t i) { return absl::StrCat("held", i); }

// Copies each held input's row into shared memory: 16 bytes a copy where the row's bytes are
// a multiple of 16 (every row then starts aligned), else a value at a time.
void CopyRows(CodeWriter& w, const KernelSource& ks, const RowLayout& l, const HeldRow& held) {
  w.Line("extern __shared__ __align__(16) unsigned char tessel_shared[];");
  for (size_t i = 0; i < held.inputs.size(); ++i) {
    const Node* n = held.inputs[i].node;
    const char* type = StorageType(n->dtype());
    const std::string input = PointerName(ks, n);
    w.Line(type, "* ", HeldName(i), " = (", type, "*)(tessel_shared + ", held.inputs[i].offset,
           ");  // ", input, "'s row");
    const int64_t per_copy = 16 / DTypeSize(n->dtype());
    if (l.length % per_copy == 0) {
      const IndexExpr at = RowIndex(l, "row", absl::StrCat("i * ", per_copy), 1, "");
      w.Line("for (int i = threadIdx.x; i < ", l.length / per_copy, "; i += ", kThreads,
             ") tessel_copy_16_async(", HeldName(i), " + i * ", per_copy, ", ", input, " + ",
             LinearOffset(at, n->shape()), ", true);");
    } else {
      const IndexExpr at = RowIndex(l, "row", "i", 1, "");
      w.Line("for (int i = threadIdx.x; i < ", l.length, "; i += ", kThreads, ") ", HeldName(i),
             "[i] = ", input, "[", LinearOffset(at, n->shape()), "];");
    }
  }
  w.Line("tessel_copy_async_wait_all();");
  w.Line("__syncthreads();  // every thread's copies have landed");
}

// One sweep of the row: `body` emits a step's work through an emitter whose lanes are the
// step's (`col(k)`), that reads the held inputs from shared memory and knows the reductions
// finished so far. Whole steps first, with no lane guards (a guard a lane costs a compare an
// element), then the row's last, partial step, guarded.
template <typename Body>
void Sweep(CodeWriter& w, const KernelSource& ks, const RowLayout& l, int vec, const HeldRow& held,
           const std::vector<std::pair<const Node*, Value>>& reduced, Body body) {
  const int lanes = vec * kVectorsPerStep;
  const int64_t step = int64_t{kThreads} * lanes, whole = l.length / step * step;
  auto emit = [&](const std::string& guard) {
    w.Line("auto col = [&](int k) -> index_t { return base + (index_t)((k / ", vec, ") * ",
           kThreads, " + threadIdx.x) * ", vec, " + k % ", vec, "; };");
    const IndexExpr idx = RowIndex(l, "row", "col(k)", vec, guard);
    ExprEmitter e(&w, lanes, ks);
    e.SuffixNames("_s");  // never hides a finished reduction's name
    for (size_t i = 0; i < held.inputs.size(); ++i) {
      IndexExpr at = idx;
      at.linear = "col(k)";
      e.ReadFrom(held.inputs[i].node, idx, HeldName(i), at);
    }
    for (const auto& [node, value] : reduced) {
      e.Bind(node, ReducedIndex(l, node->shape(), "row"), value);
    }
    body(e, idx, lanes, guard);
  };
  if (whole > 0) {
    w.Line("for (index_t base = 0; base < ", whole, "; base += ", step, ") {");
    CodeWriter::Scope loop(&w, "}");
    emit("");
  }
  if (whole < l.length) {
    w.Line("{  // the last ", l.length - whole, " values");
    CodeWriter::Scope tail(&w, "}");
    w.Line("const index_t base = ", whole, ";");
    emit(absl::StrCat("col(k) < ", l.length));
  }
}

}  // namespace

KernelSource RowHeld(const FusedKernel& k, const RowLayout& l, KernelSource ks,
                     const DynamicRows* rows) {
  const std::vector<Accumulator> accs = Accumulators(k);
  const HeldRow held = HeldInputs(k, ks, l, accs);
  const int vec = VectorWidthFor(k, l);
  ks.takes_rows = rows != nullptr;
  ks.schedule = absl::StrCat("a block per row (", kThreads, " threads), the row held in ",
                             held.bytes, " bytes of shared memory");
  const int64_t per_leading = l.rows / std::max<int64_t>(l.space[0], 1);
  CodeWriter w;
  BeginSource(w, k, rows);
  {
    auto body = KernelBlock(w, absl::StrCat(kThreads), kNamePlaceholder, ks);
    w.Line("// ", rows != nullptr ? absl::StrCat("rows x ", per_leading) : absl::StrCat(l.rows),
           " rows of ", l.length, ": a block per row, swept ", kThreads, " threads x ",
           vec * kVectorsPerStep, " lanes a step");
    DeclareScratch(w, accs);
    w.Line("const index_t row = blockIdx.x;");
    CopyRows(w, ks, l, held);
    std::vector<std::pair<const Node*, Value>> reduced;
    ExprEmitter e(&w, 1, ks);
    for (const Accumulator& a : accs) {
      w.Line(a.type(), " ", a.name, " = ", a.Identity(), ";");
      Sweep(w, ks, l, vec, held, reduced,
            [&](ExprEmitter& s, const IndexExpr& idx, int lanes, const std::string& guard) {
              Accumulate(w, a, s.Get(&a.reduction->input(0), idx), lanes, guard);
            });
      const Value r =
          e.Define(std::string(OpName(a.reduction->op())), CudaComputeType(a.reduction->dtype()),
                   false, Finish(a, BlockReduce(a, a.name), l.length));
      e.Bind(a.reduction, ReducedIndex(l, a.reduction->shape(), "row"), r);
      reduced.push_back({a.reduction, r});
    }
    // One sweep stores every output along the rows (their shared values computed once).
    if (std::any_of(ks.outputs.begin(), ks.outputs.end(),
                    [&](const Node* out) { return out->shape() == l.space; })) {
      Sweep(w, ks, l, vec, held, reduced,
            [&](ExprEmitter& s, const IndexExpr& idx, int, const std::string&) {
              for (const Node* out : ks.outputs) {
                if (out->shape() != l.space) continue;
                s.Store(absl::StrCat("out", OutputSlot(ks, out)), out, idx, s.Get(out, idx));
              }
            });
    }
    StoreReduced(w, e, ks, l, "row");
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.grid[0] = l.rows;
  if (rows != nullptr) launch.rows_grid = RowsGrid{per_leading, 1, 1};
  launch.block = kThreads;
  launch.shared_bytes = held.bytes;
  ks.launches.push_back(launch);
  FinishSource(k, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
