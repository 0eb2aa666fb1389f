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
// bits. The shapes and the measurements behind them: column_shape.h.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/column_shape.h"
#include "codegen/kernel_common.h"
#include "codegen/row_common.h"

namespace tessel::codegen {
namespace {

constexpr int kWarp = 32;
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
      s.tiled               ? absl::StrCat(" at a time of ", s.staged_lanes(),
                                           " in a shared-memory tile (16-byte copies)")
      : s.staged != nullptr ? absl::StrCat(" + ", s.shared_lanes, " in shared memory")
                            : "",
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

// Blocks of a tile an SM, as the registers' bound: three, or fewer where an H100's shared
// memory (the tile and about 4 KB of the kernel's own) or its 2048 threads hold fewer. bf16 softmax
// over the leading axis of [256, 512, 512] (32 KB tiles): 2.653 TB/s with three (40
// registers), 2.624 with four (32 registers), 2.328 with two; over the middle axis (64 KB: three
// fit) 2.654-2.663, two 2.513 (H100, bench/RESULTS.md, thirty-seventh session).
int TileBlocksPerSm(const ColumnShape& s) {
  constexpr int64_t kMostBlocks = 3, kSmBytes = 227 * 1024, kOwnBytes = 4096, kSmThreads = 2048;
  const int64_t most = std::min<int64_t>(kMostBlocks, kSmThreads / s.threads());
  return static_cast<int>(std::clamp<int64_t>(kSmBytes / (s.shared_bytes() + kOwnBytes), 1, most));
}

// The staged input's shared lanes (ColumnShape::runs; the registers' lanes too where `tiled`),
// [lane][thread], copied by the block as 16-byte runs of its columns: a thread reads them after
// the copies land and a barrier. Lanes past the column's end are zeros; runs past the last
// column copy the last run (their threads compute what they never store). `block`: the block's
// place among the blocks of columns.
void CopyRuns(CodeWriter& w, const KernelSource& ks, const ColumnShape& s, const RowLayout& l,
              const IndexExpr& idx, const std::string& guard, const std::string& block) {
  const DType dtype = s.staged->dtype();
  const char* type = StorageType(dtype);
  const int run = static_cast<int>(16 / DTypeSize(dtype));
  const int runs = s.threads() / run;  // of a lane's row
  const std::string input = PointerName(ks, s.staged);
  const int first_lane = s.tiled ? 0 : s.lanes;  // the first one copied
  w.Line("extern __shared__ __align__(16) unsigned char tessel_shared[];");
  w.Line(type, "* stage = (", type, "*)tessel_shared;  // ", input, "'s lanes ", first_lane,
         ".., [lane][thread]");
  w.Line("for (int i = threadIdx.x; i < ", s.staged_lanes() * runs, "; i += ", s.threads(), ") {");
  CodeWriter::Scope loop(&w, "}");
  w.Line("const int k = i / ", runs, first_lane == 0 ? "" : absl::StrCat(" + ", first_lane),
         ", part = i % ", runs, " / ", s.width / run, ";");
  w.Line("const index_t first = (index_t)", block, " * ", s.width, " + i % ", s.width / run, " * ",
         run, ";");
  w.Line("const index_t row = first < ", l.rows, " ? first : ", l.rows - run, ";");
  DeclareLanesFrom(w, s, 0);
  const std::string from = absl::StrCat(input, " + ", LinearOffset(idx, s.staged->shape()));
  w.Line("tessel_copy_16_async(stage + i * ", run, ", ",
         guard.empty() ? from : absl::StrCat(guard, " ? ", from, " : ", input), ", ",
         guard.empty() ? "true" : guard, ");");
}

void WaitForRuns(CodeWriter& w) {
  w.Line("tessel_copy_async_wait_all();");
  w.Line("__syncthreads();  // every thread's copies have landed");
}

// A tile's registers' lanes read back from it.
void ReadTileLanes(CodeWriter& w, const ColumnShape& s) {
  const DType dtype = s.staged->dtype();
  w.Line(CudaComputeType(dtype), " staged0[", s.lanes, "];");
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", s.lanes, "; ++k) staged0[k] = ",
         LoadConvert(dtype, absl::StrCat("stage[k * ", s.threads(), " + threadIdx.x]")), ";");
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
      w.Line(
          "for (int k = 0; k < ", s.lanes, "; ++k) staged[k] = ",
          LoadConvert(dtype, absl::StrCat("stage[(k + ", s.first_shared_lane() + (c - 1) * s.lanes,
                                          ") * ", s.threads(), " + threadIdx.x]")),
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
  return !accs.empty() && ColumnShapeOf(k, l, accs).fits;
}

KernelSource ColumnStaged(const FusedKernel& k, const RowLayout& l, KernelSource ks) {
  const std::vector<Accumulator> accs = Accumulators(k);
  const ColumnShape s = ColumnShapeOf(k, l, accs);
  const bool wide_slots =
      std::any_of(accs.begin(), accs.end(), [](const Accumulator& a) { return a.wide(); });
  ks.schedule = ScheduleOf(s);
  CodeWriter w;
  BeginSource(w, k);
  {
    // Shared lanes: two blocks an SM (the registers' bound for both); a tile up to three
    // (TileBlocksPerSm).
    const std::string bounds =
        s.staged != nullptr ? absl::StrCat(s.threads(), ", ", s.tiled ? TileBlocksPerSm(s) : 2)
                            : absl::StrCat(s.threads());
    auto body = KernelBlock(w, bounds, kNamePlaceholder, ks, s.cluster);
    w.Line("// ", l.rows, " columns of ", l.length, ": ", s.width, " a block; ", s.parts,
           " threads x ", s.lanes, " lanes",
           s.tiled ? absl::StrCat(" at a time (of ", s.staged_lanes(), " in a shared tile)")
           : s.staged != nullptr ? absl::StrCat(" (+ ", s.shared_lanes, " in shared memory)")
                                 : "",
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
    const std::string guard = PartGuard(w, s.cluster, s.part, l.length, RaggedParts(s, l));
    const IndexExpr idx =
        RowIndex(l, "row", s.cluster > 1 ? "(start + col(k))" : "col(k)", 1, guard);
    ExprEmitter e(&w, s.lanes, ks);
    if (s.runs) {
      CopyRuns(w, ks, s, l, idx, guard, block);
    } else if (s.staged != nullptr) {
      StageSharedLanes(w, ks, s, idx, guard);
    }
    if (s.tiled) {
      WaitForRuns(w);
      ReadTileLanes(w, s);
      e.Bind(s.staged, idx, Value{"staged0", true});
    }
    SharedChunks chunks{w, ks, l, s, idx, {}};
    for (size_t i = 0; i < accs.size(); ++i) {
      const Accumulator& a = accs[i];
      const Node* in = &a.reduction->input(0);
      const Value v = e.Get(in, idx);
      w.Line(a.type(), " ", a.name, " = ", a.Identity(), ";");
      Accumulate(w, a, v, s.lanes, guard);
      if (s.staged != nullptr && !s.tiled && i == 0) {  // a tile has waited before its reads
        if (s.runs) {
          WaitForRuns(w);
        } else {
          w.Line("tessel_copy_async_wait_all();  // this thread's shared lanes have landed");
          if (s.pairs()) w.Line("__syncwarp();  // and its pair's");
        }
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
