// Scan kernels: running sums and products along one axis, the shape seen as [outer, along,
// inner]. Values accumulate as the CPU backend's do (double for floats, wrapping 64-bit
// integers otherwise) in a fixed order, so the same input gives the same bits.
//
// Contiguous lines (inner = 1): a block per line walks it in tiles of 256 x kLanes values;
// each thread scans its lanes, the block scans the threads' totals, and a carry crosses the
// tiles. Strided lines (inner > 1): a thread per line, reading along the axis while
// neighbouring threads read neighbouring lines (coalesced).
//
// Few long contiguous lines (one line of 2^28) would get one block each: their tiles chain
// across blocks instead, keeping the bits fixed. Tiles take ids in launch order (an atomic
// counter: a tile waits only on tiles that started before it) and publish their totals.
// Groups of kGroup tiles publish their aggregates (the last tile of the group reduces the
// group's totals in a fixed tree) and then their inclusive prefixes. A tile's carry is the
// prefix of the groups before its own plus the totals of the earlier tiles of its group. The
// prefix comes from a decoupled look-back that folds forward from the nearest published
// prefix over the aggregates after it: the bits of the plain chain, so the same from run to
// run (the usual look-back adds what it finds in whatever order it finds it), while a
// prefix travels up to 32 groups per hop. Few strided lines (a long axis 0 of a narrow
// matrix) still get a thread each.
//
// A block idles while warp 0 waits for its carry (the slowest of the tiles before it), so
// the bandwidth comes from how many tiles an SM holds at once. Where the scanned values are
// an input read in place, its tiles are copied to shared memory asynchronously (no
// registers held by loads in flight, or across the wait) and read from there twice: 32 KB
// tiles, five blocks per SM (H100, one line of 2^28 f32: 83% of copy bandwidth against 69%
// for 16 KB tiles in registers and 60% with fenced flags and 64 registers, in a lab of
// variants).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

constexpr int kThreads = 256;
constexpr int kLanes = 4;
// Chained tiles: values per thread in rows of kLanes contiguous ones, kThreads x kLanes per
// row, all loads in flight at once; kGroup tiles per group (one earlier tile per lane of warp
// 0). In registers 16 values a thread.
constexpr int kChainedLanes = 16;
// Staged: at most 32 KB and 32 values a thread; five blocks an SM for values of 4 bytes or
// less (48 registers; 8-byte values would spill).
constexpr int kStagedTileBytes = 32 * 1024;
constexpr int kStagedLanes = 32;
constexpr int kStagedBlocksPerSm = 5;
constexpr int kGroup = 32;
// Fewer lines than this chain their tiles: two blocks per SM of an H100 (132 SMs) is where a
// block per line starts to leave the GPU idle.
constexpr int64_t kFewLines = 264;

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

// Elements per vector access along a contiguous line: kLanes where every line starts aligned.
int VectorWidth(const Lines& e) { return e.along % kLanes == 0 ? kLanes : 1; }

RunningValue RunningOf(const Node& scan) {
  return RunningValueOf(scan.dtype(), scan.op() == OpKind::kCumprod);
}

std::string Stored(const Node& scan, const std::string& acc) {
  return StoreAccumulated(scan.dtype(), acc);
}

void EmitLines(CodeWriter& w, const KernelSource& ks, const Node& scan, const Lines& e,
               const RunningValue& r) {
  const int vec = VectorWidth(e);
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
                 const RunningValue& r) {
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

// How a chained scan holds its tile: `lanes` values a thread, in registers or staged in
// shared memory.
struct Tiling {
  int lanes = kChainedLanes;
  bool staged = false;
  int blocks_per_sm = 0;  // the launch bound's minimum, where registers allow
  int Rows() const { return lanes / kLanes; }
  int64_t Elements() const { return int64_t{kThreads} * lanes; }
};

// Staged where the scanned values are a kernel input read in place, in aligned rows of kLanes
// elements of 2, 4 or 8 bytes (one asynchronous copy of 8, 16 or 32 bytes each).
Tiling TilingOf(const KernelSource& ks, const Node& scan, const Lines& e) {
  Tiling t;
  const int64_t size = DTypeSize(scan.input(0).dtype());
  if (InputIndex(ks, &scan.input(0)) >= 0 && VectorWidth(e) == kLanes &&
      (size == 2 || size == 4 || size == 8)) {
    t.staged = true;
    t.lanes =
        static_cast<int>(std::min<int64_t>(kStagedLanes, kStagedTileBytes / (kThreads * size)));
    t.blocks_per_sm = size <= 4 ? kStagedBlocksPerSm : 0;
  }
  return t;
}

// The chained layout of the workspace, in 8-byte words, all zeroed by the _init entry before
// each scan: the ticket counter (two words), then a two-word slot (tessel_publish) per tile
// for its total, and per group for its aggregate and for its inclusive prefix.
struct Chain {
  int64_t tiles_per_line, groups_per_line, tiles, groups;
  int64_t Words() const { return 2 + 2 * tiles + 4 * groups; }
};

Chain ChainOf(const Lines& e, const Tiling& t) {
  Chain c;
  c.tiles_per_line = (e.along + t.Elements() - 1) / t.Elements();
  c.groups_per_line = (c.tiles_per_line + kGroup - 1) / kGroup;
  c.tiles = e.outer * c.tiles_per_line;
  c.groups = e.outer * c.groups_per_line;
  return c;
}

void EmitChainInit(CodeWriter& w, const KernelSource& ks, const Chain& c) {
  auto body = KernelBlock(w, absl::StrCat(kThreads), absl::StrCat(kNamePlaceholder, "_init"), ks);
  w.Line("const index_t i = (index_t)blockIdx.x * ", kThreads, " + threadIdx.x;");
  w.Line("if (i < ", c.Words(), ") ((unsigned long long*)ws)[i] = 0;");
}

// This tile's values, scanned. A thread holds t.lanes values in t.Rows() rows of the tile
// (each row kThreads x kLanes contiguous values: coalesced loads and stores, where a thread's
// 16 contiguous values made every access touch twice the sectors); `rows[r]` folds the
// thread's values of row r, then becomes the value preceding them within the tile. Only the
// values stay in registers (the running values are recomputed as they are stored).
void EmitChainedTileScan(CodeWriter& w, const Tiling& t, const IndexExpr& idx,
                         const RunningValue& r, const Value& values) {
  w.Line(r.type, " rows[", t.Rows(), "];");
  w.Line("#pragma unroll");
  w.Line("for (int j = 0; j < ", t.Rows(), "; ++j) rows[j] = ", r.identity, ";");
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", t.lanes, "; ++k) if (", idx.lane_guard, ") rows[k / ", kLanes,
         "] = ",
         r.Combine(absl::StrCat("rows[k / ", kLanes, "]"),
                   absl::StrCat("(", r.type, ")", values.At())),
         ";");
  w.Line(r.type, " tile_total;");
  w.Line("tessel_block_exclusive_scan_rows(rows, ", r.op, ", ", r.identity,
         ", scratch, &tile_total);");
}

// The carry into this tile, by warp 0: the prefix of the earlier groups of its line (a
// look-back), then the earlier tiles of its group. The group's last tile publishes the
// group's aggregate as soon as its group's totals are in, and its prefix once the look-back
// returns.
void EmitChainedCarry(CodeWriter& w, const Chain& c, const RunningValue& r) {
  w.Line("unsigned long long* totals = (unsigned long long*)ws + 2;");
  w.Line("unsigned long long* aggregates = totals + 2 * ", c.tiles, ";");
  w.Line("unsigned long long* prefixes = aggregates + 2 * ", c.groups, ";");
  w.Line("if (threadIdx.x == 0) tessel_publish(totals + 2 * ticket, tile_total);");
  auto lead = w.Block("if (threadIdx.x < 32)");
  w.Line("const index_t group = tile / ", kGroup, ", first = group * ", kGroup,
         ", lines_group = line * ", c.groups_per_line, ";");
  w.Line("const bool last = tile == first + ", kGroup - 1, " || tile == ", c.tiles_per_line - 1,
         ";");
  w.Line(r.type, " earlier = ", r.identity, ";");
  w.Line("if (threadIdx.x < tile - first) earlier = tessel_await<", r.type,
         ">(totals + 2 * (line * ", c.tiles_per_line, " + first + threadIdx.x));");
  w.Line("earlier = tessel_warp_reduce(earlier, ", r.op, ");");
  w.Line("const ", r.type, " aggregate = ", r.Combine("earlier", "tile_total"), ";");
  w.Line("if (last && threadIdx.x == 0) tessel_publish(aggregates + 2 * (lines_group + group), ",
         "aggregate);");
  w.Line("const ", r.type, " prefix = tessel_look_back(aggregates + 2 * lines_group, ",
         "prefixes + 2 * lines_group, group, ", r.op, ", ", r.identity, ");");
  auto publish = w.Block("if (threadIdx.x == 0)");
  w.Line("carry = ", r.Combine("prefix", "earlier"), ";");
  w.Line("if (last) tessel_publish(prefixes + 2 * (lines_group + group), ",
         r.Combine("prefix", "aggregate"), ");");
}

// Staged tiles: each thread copies its rows of kLanes input elements to shared memory
// (asynchronously) and reads them into `values` for the tile's scan; after the wait for the
// carry EmitStagedStore reads them again, so that no register holds them across it. A
// thread reads back only what it copied.
void EmitStagedCopy(CodeWriter& w, const KernelSource& ks, const Node& input, const Lines& e,
                    const Tiling& t) {
  const char* storage = StorageType(input.dtype());
  w.Line("__shared__ __align__(16) ", storage, " staged[", t.Elements(), "];");
  w.Line("auto staged_at = [&](int k) -> int { return k / ", kLanes, " * ", kThreads * kLanes,
         " + threadIdx.x * ", kLanes, " + k % ", kLanes, "; };");
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", t.lanes, "; k += ", kLanes, ") if (col(k) < ", e.along,
         ") tessel_copy_async<", kLanes * DTypeSize(input.dtype()), ">(staged + staged_at(k), ",
         PointerName(ks, &input), " + (line * ", e.along, " + col(k)));");
  w.Line("tessel_copy_async_wait();");
}

void EmitStagedRead(CodeWriter& w, const Node& input, const Tiling& t, const Value& values) {
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", t.lanes, "; ++k) ", values.name,
         "[k] = ", LoadConvert(input.dtype(), "staged[staged_at(k)]"), ";");
}

// The scanned tile from shared memory, a row of kLanes at a time (few registers live).
void EmitStagedStore(CodeWriter& w, const Node& scan, const Lines& e, const Tiling& t,
                     const RunningValue& r) {
  const DType in = scan.input(0).dtype(), out = scan.dtype();
  w.Line("#pragma unroll");
  auto each = w.Block("for (int k = 0; k < ", t.lanes, "; k += ", kLanes, ")");
  w.Line(r.type, " running = ", r.Combine("carry", absl::StrCat("rows[k / ", kLanes, "]")), ";");
  w.Line("tessel_vec<", StorageType(out), ", ", kLanes, "> vec;");
  w.Line("#pragma unroll");
  w.Line("for (int j = 0; j < ", kLanes, "; ++j) vec.v[j] = ",
         StoreConvert(
             out, absl::StrCat("(", CudaComputeType(out), ")(running = ",
                               r.Combine("running",
                                         absl::StrCat("(", r.type, ")",
                                                      LoadConvert(in, "staged[staged_at(k + j)]"))),
                               ")")),
         ";");
  w.Line("if (col(k) < ", e.along, ") tessel_store_vec<", StorageType(out), ", ", kLanes,
         ">(out0 + (line * ", e.along, " + col(k)), vec);");
}

void EmitChained(CodeWriter& w, const KernelSource& ks, const Node& scan, const Lines& e,
                 const Tiling& t, const Chain& c, const RunningValue& r) {
  w.Line("// ", e.outer, " lines of ", e.along, ": ", c.tiles_per_line, " chained tiles of ",
         t.Elements(), " each, in groups of ", kGroup, t.staged ? ", staged in shared memory" : "");
  w.Line("__shared__ ", r.type, " scratch[", std::max(32, t.Rows() * kThreads / 32), "];");
  w.Line("__shared__ ", r.type, " carry;");
  w.Line("__shared__ unsigned long long ticket;");
  w.Line("if (threadIdx.x == 0) ticket = atomicAdd((unsigned long long*)ws, 1ull);");
  w.Line("__syncthreads();");
  w.Line("const index_t line = ticket / ", c.tiles_per_line, ", tile = ticket % ", c.tiles_per_line,
         ";");
  w.Line("auto col = [&](int k) -> index_t { return tile * ", t.Elements(), " + k / ", kLanes,
         " * ", kThreads * kLanes, " + (index_t)threadIdx.x * ", kLanes, " + k % ", kLanes, "; };");
  const int vec = VectorWidth(e);
  IndexExpr idx =
      FromLinear(scan.shape(), absl::StrCat("(line * ", e.along, " + col(k))"), true, vec);
  idx.lane_guard = absl::StrCat("col(k) < ", e.along);
  ExprEmitter emitter(&w, t.lanes, ks);
  const Node& input = scan.input(0);
  Value values;
  if (t.staged) {
    EmitStagedCopy(w, ks, input, e, t);
    values = Value{"values", true};
    w.Line(CudaComputeType(input.dtype()), " values[", t.lanes, "];");
    EmitStagedRead(w, input, t, values);
    emitter.Bind(&input, idx, values);
  } else {
    values = emitter.Get(&input, idx);
  }
  EmitChainedTileScan(w, t, idx, r, values);
  EmitChainedCarry(w, c, r);
  w.Line("__syncthreads();");
  if (t.staged) {
    EmitStagedStore(w, scan, e, t, r);
    return;
  }
  const char* type = CudaComputeType(scan.dtype());
  w.Line(r.type, " running = ", r.identity, ";");
  w.Line(type, " scanned[", t.lanes, "];");
  w.Line("#pragma unroll");
  {
    auto each = w.Block("for (int k = 0; k < ", t.lanes, "; ++k)");
    w.Line("if (k % ", kLanes,
           " == 0) running = ", r.Combine("carry", absl::StrCat("rows[k / ", kLanes, "]")), ";");
    w.Line("scanned[k] = (", type,
           ")(running = ", r.Combine("running", absl::StrCat("(", r.type, ")", values.At())), ");");
  }
  emitter.Store("out0", &scan, idx, Value{"scanned", true});
}

}  // namespace

KernelSource GenerateScan(const FusedKernel& kernel) {
  KernelSource ks = NewKernelSource(kernel);
  const Node& scan = *kernel.outputs.at(0);
  const Lines e = LinesOf(scan);
  const RunningValue r = RunningOf(scan);
  const Tiling t = TilingOf(ks, scan, e);
  const bool chained = e.inner == 1 && e.outer < kFewLines && e.along > t.Elements();
  const Chain c = ChainOf(e, t);
  if (chained) ks.workspace_bytes = 8 * c.Words();
  CodeWriter w;
  BeginSource(w, kernel);
  if (chained) {
    w.Line("#include \"tessel/scan.cuh\"");
    w.Blank();
    EmitChainInit(w, ks, c);
    w.Blank();
    Launch init;
    init.entry = absl::StrCat(kNamePlaceholder, "_init");
    init.block = kThreads;
    init.grid[0] = (c.Words() + kThreads - 1) / kThreads;
    ks.launches.push_back(init);
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.block = kThreads;
  {
    // Staged tiles hold no values in registers across the wait: registers for more blocks.
    const std::string bounds = chained && t.blocks_per_sm > 0
                                   ? absl::StrCat(kThreads, ", ", t.blocks_per_sm)
                                   : absl::StrCat(kThreads);
    auto body = KernelBlock(w, bounds, kNamePlaceholder, ks);
    if (chained) {
      EmitChained(w, ks, scan, e, t, c, r);
      launch.grid[0] = c.tiles;
    } else if (e.inner == 1) {
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
