// Normalizations over leading or middle axes (softmax(x, 0), layer_norm over the middle axis
// of [B, S, H]), held on chip. A block holds `width` consecutive rows (consecutive addresses
// along the kept innermost axis: a warp's 32 for short columns, or two warps' 64, 32 bytes of
// each for long ones) and its threads share each row's reduced extent, every thread keeping its
// elements in registers ("lanes"), so chained reductions and the epilogue read the input once, as
// the staged row kernel does for trailing axes. Long columns are split over the blocks of a
// thread-block cluster (sm_90), each holding a contiguous part; where one input is read
// along them, a thread holds most of its lanes in shared memory (staged by cp.async; 2-byte
// values a pair of neighbouring columns a copy) and works through them a chunk of registers
// at a time, so that two blocks share an SM and 64 or 128 bytes of each row are read at once.
// Partial values combine in a fixed order (warp shuffles, then the warps through shared
// memory, read back by lanes and shuffled where a column has a warp's 32 parts, then the
// cluster's blocks in rank order), the same in every thread: the same input gives the same
// bits.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_common.h"
#include "codegen/row_common.h"

namespace tessel::codegen {
namespace {

constexpr int kWarp = 32;
// Elements a thread holds, where the column is long enough: columns of 256 f32 in blocks of
// 512 threads x 16 read 95.3% of the lab's copy against 92.2% for 1024 x 8 (more loads in
// flight a thread, half the threads at each barrier; bench/labs/column_softmax_lab.cu with
// LAB_SHORT, bench/RESULTS.md, thirtieth session).
constexpr int kWantLanes = 16;
constexpr int kMaxLanes = 16;  // and at most (the staged row kernel's most, in registers);
                               // half that for 8-byte values

// Long columns with shared lanes: 512 threads (two blocks an SM), 128 bytes of each row a
// block where a cluster of 16 holds the column (non-portable: FusedKernel::
// column_cluster_blocks), else 64, each thread holding kSharedShapeLanes lanes in registers
// and as many in shared memory (64 KB of f32 a block). Against the 32 bytes of a row a block
// of 1024 threads, all in registers, one block an SM: softmax over columns of 16384 f32
// from 66.6% to 77.9% (64 bytes) and 82.9% (128 bytes) of copy in
// bench/labs/column_softmax_lab.cu (H100; bench/RESULTS.md, thirtieth session): 32-byte
// rows cap the DRAM at 67% (64 bytes 79%, 128 bytes 93%), and a lone block an SM idles at
// every cluster barrier. 16 lanes in registers and 48 shared gave 69-70% (cp.async's
// 4-byte copies cost more than loads to registers).
constexpr int kSharedLaneThreads = 512;
constexpr int kSharedShapeLanes = 32;

// How columns are spread: `width` columns a block, `parts` threads a column, each holding
// `lanes` elements of a `part` of the column in registers and `shared_lanes` more of
// `staged` (its only input read along the columns) in shared memory; `cluster` blocks
// share a column.
struct ColumnShape {
  int width = kWarp;
  int parts = 1;
  int lanes = 1;
  int shared_lanes = 0;
  const Node* staged = nullptr;
  int cluster = 1;
  int64_t part = 0;
  bool fits = false;
  int threads() const { return width * parts; }
  // Chunks of `lanes`: the registers' own, then the shared ones a chunk at a time.
  int chunks() const { return 1 + shared_lanes / lanes; }
  int64_t shared_bytes() const {
    return staged == nullptr ? 0 : int64_t{shared_lanes} * threads() * DTypeSize(staged->dtype());
  }
  // 2-byte staged values: each copy takes two neighbouring columns' values of a lane.
  bool pairs() const { return staged != nullptr && DTypeSize(staged->dtype()) == 2; }
};

// The column of `length` over as few blocks of `per_block` values as hold it, each a part.
void SplitOverBlocks(ColumnShape& s, int64_t length, int64_t per_block) {
  s.cluster = static_cast<int>((length + per_block - 1) / per_block);
  s.part = (length + s.cluster - 1) / s.cluster;
}

// The one input read along the columns (the others hold at most a value a column), where
// shared memory can stage it: over the whole space, 4-byte elements, or 2-byte ones where
// neighbouring columns' pairs are adjacent (cp.async's smallest copy is 4 bytes: a pair).
const Node* StageableInput(const FusedKernel& k, const RowLayout& l) {
  const Node* found = nullptr;
  for (const Node* n : k.inputs) {
    if (!ReadAlongRows(*n, l)) continue;
    const int64_t bytes = DTypeSize(n->dtype());
    const bool copyable = bytes == 4 || (bytes == 2 && ColumnPairsAdjacent(l));
    if (found != nullptr || n->shape() != l.space || !copyable) return nullptr;
    found = n;
  }
  return found;
}

// Whether every input read along the columns (more than a value a column) holds `bytes`-byte
// elements.
bool ColumnInputsOfSize(const FusedKernel& k, const RowLayout& l, int64_t bytes) {
  return std::all_of(k.inputs.begin(), k.inputs.end(), [&](const Node* n) {
    return !ReadAlongRows(*n, l) || DTypeSize(n->dtype()) == bytes;
  });
}

// The long-column shape with shared lanes and `row_bytes` of each row a block, its cluster
// at most `most` blocks, where it applies (fits false where not).
ColumnShape SharedLaneShape(const FusedKernel& k, const RowLayout& l, DType reduced, int row_bytes,
                            int most) {
  ColumnShape s;
  s.staged = StageableInput(k, l);
  if (s.staged == nullptr || DTypeSize(reduced) == 8) return s;
  // 2-byte pairs: 64 columns (128 bytes of each row), three times the lanes in shared memory
  // (96 KB a block: still two an SM), so that a cluster of 16 holds as long a column.
  const int64_t value_bytes = s.pairs() ? 2 : std::max<int64_t>(1, DTypeSize(reduced));
  s.width =
      static_cast<int>(std::min<int64_t>(s.pairs() ? 2 * kWarp : kWarp, row_bytes / value_bytes));
  s.parts = kSharedLaneThreads / s.width;
  s.lanes = kSharedShapeLanes;
  const int most_shared = s.pairs() ? 3 * kSharedShapeLanes : kSharedShapeLanes;
  SplitOverBlocks(s, l.length, int64_t{s.parts} * (kSharedShapeLanes + most_shared));
  // What a thread holds beyond its registers, in whole chunks of them.
  const int64_t beyond = (s.part + s.parts - 1) / s.parts - s.lanes;
  s.shared_lanes = static_cast<int>((beyond + s.lanes - 1) / s.lanes * s.lanes);
  s.fits = s.cluster <= most && s.shared_lanes > 0;
  return s;
}

// Whether `s` leaves some lanes of a part past its end (a guard a lane).
bool Ragged(const ColumnShape& s, const RowLayout& l) {
  return int64_t{s.lanes + s.shared_lanes} * s.parts != s.part || s.part * s.cluster != l.length;
}

ColumnShape ShapeOf(const FusedKernel& k, const RowLayout& l,
                    const std::vector<Accumulator>& accs) {
  // 8-byte reduced values hold half as many a thread: the planner's rule (StagedLimit), so
  // that what it stages fits here.
  const DType reduced = accs[0].reduction->input(0).dtype();
  const bool wide = DTypeSize(reduced) == 8;
  const int most = wide ? kMaxLanes / 2 : kMaxLanes;
  ColumnShape s;
  // Short columns: a warp's 32 a block, as many threads a column as give ~kWantLanes each.
  s.parts = static_cast<int>(
      std::clamp<int64_t>((l.length + kWantLanes - 1) / kWantLanes, 1, 1024 / kWarp));
  s.lanes = static_cast<int>((l.length + s.parts - 1) / s.parts);
  s.part = l.length;
  s.fits = s.lanes <= most;
  // Where that takes 512 threads, the inputs read along the columns hold 4-byte values, and
  // there are columns enough for two blocks on each of 132 SMs: 64 columns a block (256 bytes
  // of each row) in 1024 threads, so that each row's reads come two warps' at once. softmax
  // over the leading axis of [256, 512, 512] f32: 89.5% -> 92.1% of copy on the H100
  // (bench/RESULTS.md, thirty-second session). 16-bit inputs keep 32: 64 took the same
  // softmax in bf16 from 85.8% to 76.1% (thirty-fifth session). Other lengths keep 32 (not
  // measured).
  if (s.fits && s.parts == 16 && DTypeSize(reduced) == 4 && l.rows >= 64 * 2 * 132 &&
      ColumnInputsOfSize(k, l, 4)) {
    s.width = 2 * kWarp;
  }
  if (s.fits || k.cluster_blocks == 1) return s;
  // 128 bytes only where the parts are even: a ragged part's guard, a predicate a lane, on
  // top of 64 lanes spilled registers (a [1500, 2, 40] softmax over its leading axis).
  if (ColumnShape wide_rows = SharedLaneShape(k, l, reduced, 128, k.column_cluster_blocks);
      wide_rows.fits && !Ragged(wide_rows, l)) {
    return wide_rows;
  }
  // 2-byte values only at 128 bytes (64 of their rows): here a ragged part's guard and the
  // pair's test spill registers ([3000, 64] bf16), for rows of 32 bytes.
  if (ColumnShape shared = SharedLaneShape(k, l, reduced, 64, k.cluster_blocks);
      shared.fits && !shared.pairs()) {
    return shared;
  }
  // Long columns: 32 bytes of each row a block (the planner's ColumnWidth, by the reduced
  // values' dtype), 1024 threads, the column split over as many blocks as it takes.
  s.width = ColumnWidth(reduced);
  s.parts = 1024 / s.width;
  SplitOverBlocks(s, l.length, int64_t{s.parts} * most);
  s.lanes = static_cast<int>((s.part + s.parts - 1) / s.parts);
  s.fits = s.cluster <= k.cluster_blocks;
  return s;
}

// The column's part slots read back a slot a lane, `slots` lanes a column, and combined by
// shuffles (two shared reads, a barrier and a few shuffles a thread in place of a read and a
// combine a slot), where slots are a power of two from kMinLaneSlots to a warp and the block
// holds whole warps of columns. softmax over the middle axis of [256, 512, 512] bf16 (32
// slots) from 73.0% to 83.0% of copy on the H100; 16 slots +0.5 points in blocks of 64
// columns, -0.4 in blocks of 32, 8 slots (a cluster's long columns) -0.3 (bench/RESULTS.md,
// thirty-fifth session): a warp's slots only.
constexpr int kMinLaneSlots = kWarp;
int Slots(const ColumnShape& s) { return s.threads() / std::max(s.width, kWarp); }
bool CombinesSlotsByLanes(const ColumnShape& s) {
  const int slots = Slots(s);
  return s.width % kWarp == 0 && slots >= kMinLaneSlots && slots <= kWarp &&
         (slots & (slots - 1)) == 0;
}
// Values between one slot's start and the next: a column's slots read by `slots` lanes fall
// in distinct banks.
int SlotPitch(const ColumnShape& s) {
  return CombinesSlotsByLanes(s) ? s.width + kWarp / Slots(s) : s.width + 1;
}
int PartsSize(const ColumnShape& s) {
  return Slots(s) * SlotPitch(s) + (CombinesSlotsByLanes(s) ? s.width : 0);
}

// Accumulator `a` (each thread's, over its lanes) combined over its column: the lanes of a
// warp that share it, the warps through `parts`, the cluster's blocks through `slot_<acc>`.
void CombineColumn(CodeWriter& w, const Accumulator& a, const ColumnShape& s, bool first) {
  auto shuffle = [&](int offset) {
    w.Line(
        a.name, " = ",
        a.Combine(a.name, absl::StrCat("__shfl_xor_sync(0xffffffffu, ", a.name, ", ", offset, ")")),
        ";");
  };
  for (int offset = s.width; offset < kWarp; offset *= 2) shuffle(offset);
  const std::string view = absl::StrCat("((", a.type(), "*)parts)");
  const bool by_lanes = CombinesSlotsByLanes(s);
  // By lanes, every thread has read the slots before the last accumulator's second barrier.
  if (!first && !by_lanes) w.Line("__syncthreads();  // the last accumulator's parts are read");
  // A slot of a pitch for each warp (its lanes' columns), or for each part where a part takes
  // several warps.
  const int group = std::max(s.width, kWarp), slots = Slots(s), pitch = SlotPitch(s);
  const std::string writer =
      s.width < kWarp ? absl::StrCat("if (threadIdx.x % ", kWarp, " < ", s.width, ") ") : "";
  w.Line(writer, view, "[threadIdx.x / ", group, " * ", pitch, " + threadIdx.x % ", group,
         "] = ", a.name, ";");
  w.Line("__syncthreads();");
  if (by_lanes) {
    // Thread t combines slot t % slots of column t / slots; the butterfly leaves the same
    // bits in every lane of the column's.
    w.Line(a.name, " = ", view, "[threadIdx.x % ", slots, " * ", pitch, " + threadIdx.x / ", slots,
           "];");
    for (int offset = 1; offset < slots; offset *= 2) shuffle(offset);
    const int totals = slots * pitch;
    w.Line("if (threadIdx.x % ", slots, " == 0) ", view, "[", totals, " + threadIdx.x / ", slots,
           "] = ", a.name, ";");
    w.Line("__syncthreads();");
    w.Line(a.name, " = ", view, "[", totals, " + column];");
  } else {
    w.Line(a.name, " = ", view, "[column];");
    w.Line("for (int p = 1; p < ", slots, "; ++p) ", a.name, " = ",
           a.Combine(a.name, absl::StrCat(view, "[p * ", pitch, " + column]")), ";");
  }
  if (s.cluster > 1) {
    w.Line(a.name, " = tessel_cluster_reduce<", s.cluster, ">(", a.name, ", ", a.Functor(),
           ", slot_", a.name, ", ", s.width, ");");
  }
}

std::string ScheduleOf(const ColumnShape& s) {
  return absl::StrCat(
      "columns held on chip: ", s.width, " along the kept innermost axis a ",
      s.cluster > 1 ? absl::StrCat("cluster of ", s.cluster, " blocks, each holding ", s.part,
                                   " of a column as ")
                    : std::string("block, "),
      s.parts, " threads x ", s.lanes, " lanes",
      s.staged != nullptr ? absl::StrCat(" + ", s.shared_lanes, " in shared memory") : "",
      s.cluster > 1 ? "" : " per column");
}

// `col(k)` as lane `first + k` of the thread's part, in a scope of its own (a chunk's
// expressions may leave it unused).
void DeclareLanesFrom(CodeWriter& w, const ColumnShape& s, int first) {
  w.Line("[[maybe_unused]] auto col = [part](int k) -> index_t { return part + (index_t)(k + ",
         first, ") * ", s.parts, "; };");
}

// The staged input's shared lanes (after the registers' `lanes`), copied to `stage` as
// [lane][thread] (each thread reads only its own: no barrier) without holding registers.
void StageSharedLanes(CodeWriter& w, const KernelSource& ks, const ColumnShape& s,
                      const IndexExpr& idx, const std::string& guard) {
  const char* type = StorageType(s.staged->dtype());
  w.Line("extern __shared__ __align__(16) unsigned char tessel_shared[];");
  w.Line(type, "* stage = (", type, "*)tessel_shared;  // lanes ", s.lanes, ".. of ",
         PointerName(ks, s.staged), ", [lane][thread]");
  w.Line("{");
  CodeWriter::Scope scope(&w, "}");
  DeclareLanesFrom(w, s, s.lanes);
  const std::string offset = LinearOffset(idx, s.staged->shape());
  w.Line("#pragma unroll");
  if (!s.pairs()) {
    w.Line("for (int k = 0; k < ", s.shared_lanes, "; ++k) ",
           guard.empty() ? "" : absl::StrCat("if (", guard, ") "),
           "tessel_copy_4_async(stage + k * ", s.threads(), " + threadIdx.x, ",
           PointerName(ks, s.staged), " + ", offset, ");");
    return;
  }
  // A pair's even thread copies the even lanes of both columns, the odd thread the odd ones
  // (each reads the other's after a __syncwarp).
  const std::string condition = absl::StrCat("(k & 1) == (threadIdx.x & 1)",
                                             guard.empty() ? "" : absl::StrCat(" && ", guard));
  w.Line("for (int k = 0; k < ", s.shared_lanes, "; ++k) if (", condition,
         ") tessel_copy_4_async(stage + k * ", s.threads(), " + (threadIdx.x & ~1u), ",
         PointerName(ks, s.staged), " + ", offset, " - (threadIdx.x & 1));");
}

// The shared lanes a chunk of registers at a time: each chunk in a scope of its own, where
// `col(k)` names its lanes, the staged input's values come from shared memory and the
// reductions finished so far are bound, so that the same expressions emit its math.
struct SharedChunks {
  CodeWriter& w;
  const KernelSource& ks;
  const RowLayout& l;
  const ColumnShape& s;
  const IndexExpr& idx;
  std::vector<std::pair<const Node*, Value>> reduced;

  template <typename Body>
  void Each(Body body) {
    if (s.staged == nullptr) return;
    const DType dtype = s.staged->dtype();
    for (int c = 1; c < s.chunks(); ++c) {
      w.Line("{  // lanes ", c * s.lanes, "..", (c + 1) * s.lanes - 1, ", from shared memory");
      CodeWriter::Scope scope(&w, "}");
      DeclareLanesFrom(w, s, c * s.lanes);
      w.Line(CudaComputeType(dtype), " staged[", s.lanes, "];");
      w.Line("#pragma unroll");
      w.Line("for (int k = 0; k < ", s.lanes, "; ++k) staged[k] = ",
             LoadConvert(dtype, absl::StrCat("stage[(k + ", (c - 1) * s.lanes, ") * ", s.threads(),
                                             " + threadIdx.x]")),
             ";");
      ExprEmitter chunk(&w, s.lanes, ks);
      chunk.SuffixNames("_c");
      chunk.Bind(s.staged, idx, Value{"staged", true});
      for (const auto& [node, value] : reduced) {
        chunk.Bind(node, ReducedIndex(l, node->shape(), "row"), value);
      }
      body(chunk);
    }
  }
};

}  // namespace

bool UsesColumnStaging(const FusedKernel& k, const RowLayout& l) {
  if (!k.staged || !k.online_sums.empty() || l.trailing) return false;
  if (!ReadsColumns(k.row_space, k.reduced_axes) || l.length < 2) return false;
  const std::vector<Accumulator> accs = Accumulators(k);
  return !accs.empty() && ShapeOf(k, l, accs).fits;
}

KernelSource ColumnStaged(const FusedKernel& k, const RowLayout& l, KernelSource ks) {
  const std::vector<Accumulator> accs = Accumulators(k);
  const ColumnShape s = ShapeOf(k, l, accs);
  const bool wide_slots =
      std::any_of(accs.begin(), accs.end(), [](const Accumulator& a) { return a.wide(); });
  ks.schedule = ScheduleOf(s);
  CodeWriter w;
  BeginSource(w, k);
  {
    // Shared lanes: two blocks an SM (the registers' bound for both).
    const std::string bounds =
        s.staged != nullptr ? absl::StrCat(s.threads(), ", 2") : absl::StrCat(s.threads());
    auto body = KernelBlock(w, bounds, kNamePlaceholder, ks, s.cluster);
    w.Line("// ", l.rows, " columns of ", l.length, ": ", s.width, " a block; ", s.parts,
           " threads x ", s.lanes, " lanes",
           s.staged != nullptr ? absl::StrCat(" (+ ", s.shared_lanes, " in shared memory)") : "",
           " hold ",
           s.cluster > 1 ? absl::StrCat("a part of ", s.part, " (", s.cluster, " a column)")
                         : std::string("a column"));
    // One buffer of the widest accumulator, the accumulators combined through it in turn.
    w.Line("__shared__ ", wide_slots ? "double" : "float", " parts[", PartsSize(s), "];");
    if (s.cluster > 1) {
      for (const Accumulator& a : accs) {
        w.Line("__shared__ ", a.type(), " slot_", a.name, "[", 2 * s.width, "];");
      }
    }
    const std::string block =
        s.cluster > 1 ? absl::StrCat("(blockIdx.x / ", s.cluster, ")") : "blockIdx.x";
    w.Line("const int column = threadIdx.x % ", s.width, ", part = threadIdx.x / ", s.width, ";");
    w.Line("const index_t first = (index_t)", block, " * ", s.width, " + column;");
    // Lanes past the last column compute the last one again (every read in bounds, every
    // barrier reached) and store nothing; where pairs are copied, the last pair.
    w.Line("const bool valid = first < ", l.rows, ";");
    if (s.pairs()) {
      w.Line("const index_t row = valid ? first : ", l.rows - 2, " + (threadIdx.x & 1);");
    } else {
      w.Line("const index_t row = valid ? first : ", l.rows - 1, ";");
    }
    if (s.cluster > 1) {
      w.Line("const index_t start = (index_t)(blockIdx.x % ", s.cluster, ") * ", s.part,
             ";  // this block's part");
    }
    w.Line("auto col = [part](int k) -> index_t { return part + (index_t)k * ", s.parts, "; };");
    const std::string guard = PartGuard(w, s.cluster, s.part, l.length, Ragged(s, l));
    const IndexExpr idx =
        RowIndex(l, "row", s.cluster > 1 ? "(start + col(k))" : "col(k)", 1, guard);
    if (s.staged != nullptr) StageSharedLanes(w, ks, s, idx, guard);
    SharedChunks chunks{w, ks, l, s, idx, {}};
    ExprEmitter e(&w, s.lanes, ks);
    for (size_t i = 0; i < accs.size(); ++i) {
      const Accumulator& a = accs[i];
      const Node* in = &a.reduction->input(0);
      const Value v = e.Get(in, idx);
      w.Line(a.type(), " ", a.name, " = ", a.Identity(), ";");
      Accumulate(w, a, v, s.lanes, guard);
      if (s.staged != nullptr && i == 0) {
        w.Line("tessel_copy_async_wait_all();  // this thread's shared lanes have landed");
        if (s.pairs()) w.Line("__syncwarp();  // and its pair's");
      }
      chunks.Each([&](ExprEmitter& c) { Accumulate(w, a, c.Get(in, idx), s.lanes, guard); });
      CombineColumn(w, a, s, i == 0);
      const Value r =
          e.Define(std::string(OpName(a.reduction->op())), CudaComputeType(a.reduction->dtype()),
                   false, Finish(a, a.name, l.length));
      e.Bind(a.reduction, ReducedIndex(l, a.reduction->shape(), "row"), r);
      chunks.reduced.push_back({a.reduction, r});
    }
    if (s.cluster > 1) ArriveAfterClusterReads(w);
    IndexExpr store_at = idx;  // the values at idx, stored by valid lanes only
    store_at.thread_guard = "valid";
    for (const Node* out : ks.outputs) {
      if (out->shape() != l.space) continue;
      const std::string pointer = absl::StrCat("out", OutputSlot(ks, out));
      e.Store(pointer, out, store_at, e.Get(out, idx));
      chunks.Each([&](ExprEmitter& c) { c.Store(pointer, out, store_at, c.Get(out, idx)); });
    }
    StoreReduced(w, e, ks, l, "row",
                 s.cluster > 1
                     ? absl::StrCat("part == 0 && valid && blockIdx.x % ", s.cluster, " == 0")
                     : "part == 0 && valid");
    if (s.cluster > 1) WaitBeforeLeaving(w);
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.grid[0] = (l.rows + s.width - 1) / s.width * s.cluster;
  launch.block = s.threads();
  launch.shared_bytes = s.shared_bytes();
  launch.cluster = s.cluster;
  ks.launches.push_back(launch);
  FinishSource(k, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
