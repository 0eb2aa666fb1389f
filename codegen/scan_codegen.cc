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
#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

constexpr int kThreads = 256;
constexpr int kLanes = 4;
// Chained tiles: kChainedLanes values per thread (4096 per tile) in kChainedRows rows of kLanes
// contiguous ones, its loads all in flight at once; kGroup tiles per group (one earlier tile
// per lane of warp 0).
constexpr int kChainedLanes = 16;
constexpr int kChainedRows = kChainedLanes / kLanes;
constexpr int kChainedTile = kThreads * kChainedLanes;
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

// The chained layout of the workspace, in 8-byte words: the ticket counter, a ready flag per
// tile and a state per group (zeroed by the _init entry before each scan), then the tiles'
// totals, the groups' aggregates and the groups' inclusive prefixes.
struct Chain {
  int64_t tiles_per_line, groups_per_line, tiles, groups;
  int64_t FlagWords() const { return 1 + tiles + groups; }
  int64_t Words() const { return FlagWords() + tiles + 2 * groups; }
};

Chain ChainOf(const Lines& e) {
  Chain c;
  c.tiles_per_line = (e.along + kChainedTile - 1) / kChainedTile;
  c.groups_per_line = (c.tiles_per_line + kGroup - 1) / kGroup;
  c.tiles = e.outer * c.tiles_per_line;
  c.groups = e.outer * c.groups_per_line;
  return c;
}

void EmitChainInit(CodeWriter& w, const KernelSource& ks, const Chain& c) {
  auto body = KernelBlock(w, absl::StrCat(kThreads), absl::StrCat(kNamePlaceholder, "_init"), ks);
  w.Line("const index_t i = (index_t)blockIdx.x * ", kThreads, " + threadIdx.x;");
  w.Line("if (i < ", c.FlagWords(), ") ((unsigned long long*)ws)[i] = 0;");
}

// This tile's values, scanned. A thread holds kChainedLanes values in kChainedRows rows of
// the tile (each row kThreads x kLanes contiguous values: coalesced loads and stores, where a
// thread's 16 contiguous values made every access touch twice the sectors); `rows[r]` folds
// the thread's values of row r, then becomes the value preceding them within the tile. Only
// the values stay in registers (the running values are recomputed as they are stored).
void EmitChainedTileScan(CodeWriter& w, ExprEmitter& emitter, const IndexExpr& idx,
                         const Node& scan, const RunningValue& r, Value* values) {
  *values = emitter.Get(&scan.input(0), idx);
  w.Line(r.type, " rows[", kChainedRows, "];");
  w.Line("#pragma unroll");
  w.Line("for (int j = 0; j < ", kChainedRows, "; ++j) rows[j] = ", r.identity, ";");
  w.Line("#pragma unroll");
  w.Line("for (int k = 0; k < ", kChainedLanes, "; ++k) if (", idx.lane_guard, ") rows[k / ",
         kLanes, "] = ",
         r.Combine(absl::StrCat("rows[k / ", kLanes, "]"),
                   absl::StrCat("(", r.type, ")", values->At())),
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
  w.Line("unsigned long long* tile_ready = (unsigned long long*)ws + 1;");
  w.Line("unsigned long long* group_state = tile_ready + ", c.tiles, ";");
  w.Line(r.type, "* totals = (", r.type, "*)(group_state + ", c.groups, ");");
  w.Line(r.type, "* aggregates = totals + ", c.tiles, ";");
  w.Line(r.type, "* prefixes = aggregates + ", c.groups, ";");
  {
    auto publish = w.Block("if (threadIdx.x == 0)");
    w.Line("__stcg(totals + ticket, tile_total);");
    w.Line("tessel_raise(tile_ready + ticket);");
  }
  auto lead = w.Block("if (threadIdx.x < 32)");
  w.Line("const index_t group = tile / ", kGroup, ", first = group * ", kGroup,
         ", lines_group = line * ", c.groups_per_line, ";");
  w.Line("const bool last = tile == first + ", kGroup - 1, " || tile == ", c.tiles_per_line - 1,
         ";");
  w.Line(r.type, " earlier = ", r.identity, ";");
  {
    auto wait = w.Block("if (threadIdx.x < tile - first)");
    w.Line("const index_t j = line * ", c.tiles_per_line, " + first + threadIdx.x;");
    w.Line("tessel_await(tile_ready + j);");
    w.Line("earlier = __ldcg(totals + j);");
  }
  w.Line("earlier = tessel_warp_reduce(earlier, ", r.op, ");");
  w.Line("const ", r.type, " aggregate = ", r.Combine("earlier", "tile_total"), ";");
  {
    auto publish = w.Block("if (last && threadIdx.x == 0)");
    w.Line("__stcg(aggregates + lines_group + group, aggregate);");
    w.Line("tessel_raise(group_state + lines_group + group, 1);");
  }
  w.Line("const ", r.type, " prefix = tessel_look_back(group_state + lines_group, aggregates + ",
         "lines_group, prefixes + lines_group, group, ", r.op, ", ", r.identity, ");");
  {
    auto publish = w.Block("if (threadIdx.x == 0)");
    w.Line("carry = ", r.Combine("prefix", "earlier"), ";");
    auto last = w.Block("if (last)");
    w.Line("__stcg(prefixes + lines_group + group, ", r.Combine("prefix", "aggregate"), ");");
    w.Line("tessel_raise(group_state + lines_group + group, 2);");
  }
}

void EmitChained(CodeWriter& w, const KernelSource& ks, const Node& scan, const Lines& e,
                 const Chain& c, const RunningValue& r) {
  w.Line("// ", e.outer, " lines of ", e.along, ": ", c.tiles_per_line, " chained tiles of ",
         kChainedTile, " each, in groups of ", kGroup);
  w.Line("__shared__ ", r.type, " scratch[32];");
  w.Line("__shared__ ", r.type, " carry;");
  w.Line("__shared__ unsigned long long ticket;");
  w.Line("if (threadIdx.x == 0) ticket = atomicAdd((unsigned long long*)ws, 1ull);");
  w.Line("__syncthreads();");
  w.Line("const index_t line = ticket / ", c.tiles_per_line, ", tile = ticket % ", c.tiles_per_line,
         ";");
  w.Line("auto col = [&](int k) -> index_t { return tile * ", kChainedTile, " + k / ", kLanes,
         " * ", kThreads * kLanes, " + (index_t)threadIdx.x * ", kLanes, " + k % ", kLanes, "; };");
  const int vec = VectorWidth(e);
  IndexExpr idx =
      FromLinear(scan.shape(), absl::StrCat("(line * ", e.along, " + col(k))"), true, vec);
  idx.lane_guard = absl::StrCat("col(k) < ", e.along);
  ExprEmitter emitter(&w, kChainedLanes, ks);
  Value values;
  EmitChainedTileScan(w, emitter, idx, scan, r, &values);
  EmitChainedCarry(w, c, r);
  w.Line("__syncthreads();");
  const char* type = CudaComputeType(scan.dtype());
  w.Line(r.type, " running = ", r.identity, ";");
  w.Line(type, " scanned[", kChainedLanes, "];");
  w.Line("#pragma unroll");
  {
    auto each = w.Block("for (int k = 0; k < ", kChainedLanes, "; ++k)");
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
  const bool chained = e.inner == 1 && e.outer < kFewLines && e.along > kChainedTile;
  const Chain c = ChainOf(e);
  if (chained) ks.workspace_bytes = 8 * c.Words();
  CodeWriter w;
  BeginSource(w, kernel);
  if (chained) {
    EmitChainInit(w, ks, c);
    w.Blank();
    Launch init;
    init.entry = absl::StrCat(kNamePlaceholder, "_init");
    init.block = kThreads;
    init.grid[0] = (c.FlagWords() + kThreads - 1) / kThreads;
    ks.launches.push_back(init);
  }
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.block = kThreads;
  {
    auto body = KernelBlock(w, absl::StrCat(kThreads), kNamePlaceholder, ks);
    if (chained) {
      EmitChained(w, ks, scan, e, c, r);
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
