#include "codegen/column_shape.h"

#include <algorithm>

#include "codegen/kernel_common.h"

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
// 4-byte copies cost more than loads to registers). Where 16-byte runs of columns lie side
// by side, the block copies the shared lanes so (ColumnShape::runs): softmax over columns of
// 16384 of [16384, 8192] bf16 55.3% -> 65.3% of copy, f32 78.0% -> 80.6% (H100,
// bench/RESULTS.md, thirty-seventh session).
constexpr int kSharedLaneThreads = 512;
constexpr int kSharedShapeLanes = 32;

// Short columns of 16-bit values with the staged input's whole tile in shared memory: 64
// columns (128 bytes of each row) a block of 512 threads, the rows copied 16 bytes at a time
// (cp.async: nothing held in registers while in flight), each thread's first kWantLanes
// values read back into registers, the rest a chunk at a time. bf16 softmax over the leading
// / middle axis of [256, 512, 512] (columns of 256 / 512): 0.1059 / 0.1094 ms as generated
// before (32 columns a block of 512 / 1024 threads, every lane loaded into registers), 0.1018
// / 0.1019 ms so, the copies alone 0.1010 / 0.0968 (bench/labs/staged_columns_lab.cu, H100,
// bench/RESULTS.md, thirty-seventh session). 32 columns a block: 0.1116 / 0.1149; 256 or
// 1024 threads: 0.1070 / 0.1040, 0.1144 / 0.1070. In gpu_bench: 2.592 -> 2.653 and 2.490 ->
// 2.663 TB/s (the copy: 3.01). Columns up to 256: 128 columns (256 bytes of each row) a
// block of 1024 threads (8 parts of 32 lanes), two 64 KB tiles an SM: the leading axis above
// 0.1013 -> 0.0990 ms (2.649 -> 2.712 TB/s); 128 columns in 512 threads 0.1012, 64 in 1024
// 0.1015; over the middle axis 128 columns take 128 KB tiles, one an SM: 0.1176
// (bench/results/h100-2026-11-28-session40, call 2). Not longer: at 384 a layer norm's
// kernel spilled at the 32 registers two blocks of 1024 leave.
constexpr int kTileWidth = 64;
constexpr int kTileThreads = 512;
constexpr int kWideTileWidth = 128;
constexpr int kWideTileThreads = 1024;
constexpr int64_t kWideTileMostLength = 256;
constexpr int kRunBytes = 16;

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
    const bool copyable = bytes == 4 || (bytes == 2 && ColumnRunsAdjacent(l, 2));
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
  const int64_t value_bytes = s.two_byte() ? 2 : std::max<int64_t>(1, DTypeSize(reduced));
  s.width = static_cast<int>(
      std::min<int64_t>(s.two_byte() ? 2 * kWarp : kWarp, row_bytes / value_bytes));
  s.parts = kSharedLaneThreads / s.width;
  s.lanes = kSharedShapeLanes;
  const int most_shared = s.two_byte() ? 3 * kSharedShapeLanes : kSharedShapeLanes;
  SplitOverBlocks(s, l.length, int64_t{s.parts} * (kSharedShapeLanes + most_shared));
  // What a thread holds beyond its registers, in whole chunks of them.
  const int64_t beyond = (s.part + s.parts - 1) / s.parts - s.lanes;
  s.shared_lanes = s.WholeChunks(beyond);
  s.fits = s.cluster <= most && s.shared_lanes > 0;
  // Runs where parts are even: a ragged part's guard about the copies spilled registers (a
  // [12000, 40] softmax cast to f64).
  s.runs = ColumnRunsAdjacent(l, kRunBytes / static_cast<int>(DTypeSize(s.staged->dtype()))) &&
           !RaggedParts(s, l);
  return s;
}

// Whether every op of `k` that reads `n` reads it at the position it computes (elementwise
// ops and reductions, not views): a tile of `n` then holds every value the kernel reads of it.
bool ReadInPlace(const FusedKernel& k, const Node* n) {
  for (const Node* m : k.nodes) {
    const OpCategory category = GetOpInfo(m->op()).category;
    if (category == OpCategory::kElementwise || category == OpCategory::kReduce) continue;
    for (const auto& input : m->inputs()) {
      if (&*input == n) return false;
    }
  }
  return true;
}

// The tiled short-column shape (fits false where it does not apply): as many columns as long
// as FusedKernel::column_tile_columns and column_tile_length ask (targets whose shared memory
// holds three tiles an SM), the one input read along them 2-byte values whose 16-byte runs of
// columns lie side by side, read only in place; for kernels whose registers do at three
// blocks of 512 or two of 1024 (40 or 32 a thread): one output and no 8-byte values. Two outputs
// (softmax and log_softmax) spilled 376 bytes there, a softmax's gradient (three outputs) 1164.
ColumnShape TiledShape(const FusedKernel& k, const RowLayout& l) {
  ColumnShape s;
  if (k.column_tile_columns == 0 || l.rows < k.column_tile_columns ||
      l.length < k.column_tile_length || k.outputs.size() != 1 || HoldsWideValues(k)) {
    return s;
  }
  s.staged = StageableInput(k, l);
  if (!s.two_byte() || !ColumnRunsAdjacent(l, kRunBytes / 2) || !ReadInPlace(k, s.staged)) {
    return s;
  }
  s.runs = s.tiled = true;
  // Wide blocks where columns are many enough for two of them on every SM, as the narrow
  // ones' threshold asks for two of those (FusedKernel::column_tile_columns).
  const bool wide = l.length <= kWideTileMostLength &&
                    l.rows >= k.column_tile_columns * kWideTileWidth / kTileWidth;
  s.width = wide ? kWideTileWidth : kTileWidth;
  s.parts = (wide ? kWideTileThreads : kTileThreads) / s.width;
  s.part = l.length;
  const int64_t per_thread = (l.length + s.parts - 1) / s.parts;
  s.lanes = static_cast<int>(std::min<int64_t>(kWantLanes, per_thread));
  s.shared_lanes = s.WholeChunks(per_thread - s.lanes);
  s.fits = true;
  return s;
}

}  // namespace

bool RaggedParts(const ColumnShape& s, const RowLayout& l) {
  return int64_t{s.lanes + s.shared_lanes} * s.parts != s.part || s.part * s.cluster != l.length;
}

ColumnShape ColumnShapeOf(const FusedKernel& k, const RowLayout& l,
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
  // Many 16-bit columns of 241-512 (measured at 256 and 512): a tile.
  if (s.fits) {
    if (ColumnShape tiled = TiledShape(k, l); tiled.fits) return tiled;
  }
  if (s.fits || k.cluster_blocks == 1) return s;
  // 128 bytes only where the parts are even: a ragged part's guard, a predicate a lane, on
  // top of 64 lanes spilled registers (a [1500, 2, 40] softmax over its leading axis).
  if (ColumnShape wide_rows = SharedLaneShape(k, l, reduced, 128, k.column_cluster_blocks);
      wide_rows.fits && !RaggedParts(wide_rows, l)) {
    return wide_rows;
  }
  // 2-byte values only at 128 bytes (64 of their rows): here a ragged part's guard and the
  // pair's test spill registers ([3000, 64] bf16), for rows of 32 bytes.
  if (ColumnShape shared = SharedLaneShape(k, l, reduced, 64, k.cluster_blocks);
      shared.fits && !shared.two_byte()) {
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

}  // namespace tessel::codegen
