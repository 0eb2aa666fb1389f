// Transposing pointwise kernels (fusion/access.h): the space is cut into tiles of 32 x 32
// (64 x 64 for 2-byte outputs) along two axes, `along` (the axis most input bytes are
// contiguous along) and `across` (the outputs' contiguous axis). A block computes its tile
// with consecutive threads along `along`, so those inputs are read at consecutive addresses,
// keeps the values in shared memory, and stores them with consecutive threads along `across`:
// both sides coalesced. A thread computes two positions along `along` where the outputs are
// 16-bit or narrower (AlongLanes), and tiles that divide the space carry no bounds check.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "fusion/access.h"

namespace tessel::codegen {
namespace {

constexpr int kTile = 32;  // a warp along each axis
constexpr int kRows = 8;   // warps a block: each thread takes tile / kRows elements a phase
// Both axes at least a tile long: shorter ones leave most of a tile's threads idle.
constexpr int64_t kMinExtent = kTile;
// Shared memory the output tiles may take (static: below the 48 KB a block has without
// opting in).
constexpr int64_t kMaxTileBytes = 40 * 1024;

// A block's tile: `along` x `across` positions.
struct Tile {
  int along = kTile, across = kTile;
};

// Elements a row of the shared tile holds: `along` and a pad that puts each row's first
// element a bank further than the last row's (4 bytes), so that reading down a column
// (the stores) takes a distinct bank a lane.
int Pitch(const Tile& t, DType dtype) {
  return t.along + static_cast<int>(4 / std::min<int64_t>(4, DTypeSize(dtype)));
}

int64_t TileBytes(const FusedKernel& kernel, const Tile& t) {
  int64_t bytes = 0;
  for (const Node* out : kernel.outputs) {
    bytes += int64_t{t.across} * Pitch(t, out->dtype()) * DTypeSize(out->dtype());
  }
  return bytes;
}

bool NarrowOutputs(const FusedKernel& kernel) {
  return std::all_of(kernel.outputs.begin(), kernel.outputs.end(),
                     [](const Node* out) { return DTypeSize(out->dtype()) <= 2; });
}

// 2-byte outputs take 64 positions along each axis at least that long: a block then moves
// as many bytes as a 32 x 32 tile of 4-byte values where both are (bf16 transpose of [16384,
// 8192] 71% -> 91% of copy on the H100, bench/RESULTS.md, thirty-third session); but 64 input
// rows only where they lie within a 2 MB page: rows 2 MB apart (permute {3, 2, 1, 0} of [64,
// 256, 32, 128] bf16) ran at 71.8% in 64 x 64 tiles, 81.1% in 64 along x 32 across; rows
// 16 KB apart (the transpose) at 90.7% against 86.4% (thirty-fourth session, call 3).
Tile TileOf(const FusedKernel& kernel, const TransposedAxes& axes) {
  const Shape& space = kernel.segments[0];
  if (!NarrowOutputs(kernel)) return {};
  constexpr int64_t kPage = int64_t{2} << 20;
  const bool rows_near = axes.across_stride_bytes * (2 * kTile - 1) < kPage;
  Tile t{space[axes.along] >= 2 * kTile ? 2 * kTile : kTile,
         space[axes.across] >= 2 * kTile && rows_near ? 2 * kTile : kTile};
  return TileBytes(kernel, t) <= kMaxTileBytes ? t : Tile{};
}

// The extent of axis `d` in the source: the rows argument for a dynamic leading axis.
std::string Extent(const Shape& space, int d, bool rows) {
  return rows && d == 0 ? "(index_t)rows" : absl::StrCat(space[d]);
}

// The tile's position from blockIdx.x: `across` fastest, then `along`, then the other axes
// from the innermost out (the outermost takes the rest, so its extent is never needed).
void EmitTileOrigin(CodeWriter& w, const Shape& space, const TransposedAxes& axes, const Tile& t,
                    bool rows) {
  w.Line("index_t b_ = blockIdx.x;");
  for (int d : {axes.across, axes.along}) {
    const int tile = d == axes.along ? t.along : t.across;
    const std::string tiles =
        absl::StrCat("((", Extent(space, d, rows), " + ", tile - 1, ") / ", tile, ")");
    w.Line("const index_t at_", d, " = b_ % ", tiles, " * ", tile, ";");
    w.Line("b_ /= ", tiles, ";");
  }
  std::vector<int> others;
  for (int d = space.rank() - 1; d >= 0; --d) {
    if (d != axes.along && d != axes.across && space[d] > 1) others.push_back(d);
  }
  for (size_t i = 0; i < others.size(); ++i) {
    const int d = others[i];
    if (i + 1 == others.size()) {
      w.Line("const index_t i_", d, " = b_;");
    } else {
      w.Line("const index_t i_", d, " = b_ % ", Extent(space, d, rows), ";");
      w.Line("b_ /= ", Extent(space, d, rows), ";");
    }
  }
}

// Every tile lies wholly inside the space: no position needs a bounds check. (`across`, the
// outputs' contiguous axis, is the last: never the dynamic leading one.) With 16-bit tiles
// this comes with pairs (tiles that fit: an even extent along); measured alone, one position
// a thread, it ran the bf16 permutes of AlongLanes at 87.3 / 93.9 / 94.2% of copy but the
// transpose at 89.1% (thirty-sixth session, call 5).
bool TilesFit(const Shape& space, const TransposedAxes& axes, const Tile& t, bool rows) {
  return !(rows && axes.along == 0) && space[axes.along] % t.along == 0 &&
         space[axes.across] % t.across == 0;
}

// The position with `along` at at_<along> + `a` (+ k, the lane, where `lanes` > 1: `a` is then
// a multiple of `lanes`) and `across` at at_<across> + `c`; in bounds under `in_bounds` (its
// first lane's: the extent along is a multiple of `lanes`), "" where every tile fits.
IndexExpr TilePosition(const Shape& space, const TransposedAxes& axes, const Tile& t,
                       const std::string& a, const std::string& c, int lanes, bool rows,
                       std::string* in_bounds) {
  std::vector<std::string> dims(space.rank(), "0");
  for (int d = 0; d < space.rank(); ++d) {
    if (space[d] > 1) dims[d] = absl::StrCat("i_", d);
  }
  const std::string first = absl::StrCat("(at_", axes.along, " + ", a, ")");
  dims[axes.along] = lanes > 1 ? absl::StrCat("(at_", axes.along, " + ", a, " + k)") : first;
  dims[axes.across] = absl::StrCat("(at_", axes.across, " + ", c, ")");
  *in_bounds = TilesFit(space, axes, t, rows)
                   ? ""
                   : absl::StrCat(first, " < ", Extent(space, axes.along, rows), " && ",
                                  dims[axes.across], " < ", Extent(space, axes.across, rows));
  std::vector<bool> lane(space.rank(), false);
  lane[axes.along] = lanes > 1;
  IndexExpr idx = FromDims(space, std::move(dims), std::move(lane));
  return lanes > 1 ? AlongDim(std::move(idx), space, axes.along, lanes) : idx;
}

// The loop over a thread's positions of the tile, consecutive threads (x_) along `along`
// where `threads_along` (each taking `lanes` consecutive positions), else along `across`, with
// `body` emitting the work (`what` the comment says) at each position in bounds.
template <typename Body>
void EmitTileLoop(CodeWriter& w, const Shape& space, const TransposedAxes& axes, const Tile& t,
                  bool threads_along, int lanes, const char* what, bool rows, Body body) {
  const int width = threads_along ? t.along / lanes : t.across;
  const int height = threads_along ? t.across : t.along;
  w.Line("{  // ", what, " with consecutive threads along axis ",
         threads_along ? axes.along : axes.across,
         lanes > 1 ? absl::StrCat(", ", lanes, " positions a thread") : "");
  CodeWriter::Scope scope(&w, "}");
  w.Line("const int x_ = threadIdx.x % ", width, ", y_ = threadIdx.x / ", width, ";");
  w.Line("#pragma unroll");
  auto loop = w.Block("for (int j_ = 0; j_ < ", height, "; j_ += ", kTile * kRows / width, ")");
  std::string in_bounds;
  const std::string x = lanes > 1 ? absl::StrCat(lanes, " * x_") : "x_";
  const IndexExpr idx = threads_along
                            ? TilePosition(space, axes, t, x, "(y_ + j_)", lanes, rows, &in_bounds)
                            : TilePosition(space, axes, t, "(y_ + j_)", "x_", 1, rows, &in_bounds);
  std::optional<CodeWriter::Scope> guard;
  if (!in_bounds.empty()) {
    w.Line("if (", in_bounds, ") {");
    guard.emplace(&w, "}");
  }
  body(idx, x);
}

// Positions a thread computes along `along`: two where every output is at most 2 bytes wide
// and the extent along is even, so that inputs contiguous along it (through a permute) load
// two elements at once (bf16: one 32-bit word). bf16 [64, 256, 32, 128] permuted by
// {3, 2, 1, 0} / {0, 3, 1, 2} / {0, 1, 3, 2}, % of copy on the H100: 81.1 / 88.3 / 88.7 ->
// 90.6 / 98.8 / 99.2; the [16384, 8192] transpose 90.8 -> 93.2 (bench/RESULTS.md,
// thirty-sixth session). 4-byte outputs in pairs: no change (f32 permute 88.9 / 88.9%). Not
// along a dynamic leading axis, whose extent may be odd.
int AlongLanes(const FusedKernel& kernel, const Shape& space, const TransposedAxes& axes,
               bool rows) {
  const bool even = space[axes.along] % 2 == 0;
  return NarrowOutputs(kernel) && even && !(rows && axes.along == 0) ? 2 : 1;
}

}  // namespace

TransposedAxes TransposeTiles(const FusedKernel& kernel) {
  if (TileBytes(kernel, Tile{}) > kMaxTileBytes) return {};
  return TransposedAccess(kernel, kMinExtent);
}

KernelSource GenerateTransposed(const FusedKernel& kernel, const TransposedAxes& axes,
                                const DynamicRows* rows) {
  KernelSource ks = NewKernelSource(kernel);
  ks.takes_rows = rows != nullptr;
  const Shape& space = kernel.segments[0];
  const bool dynamic = rows != nullptr;
  const Tile tile = TileOf(kernel, axes);
  const int lanes = AlongLanes(kernel, space, axes, dynamic);
  ks.schedule =
      absl::StrCat("tiled ", tile.along, " x ", tile.across, " through shared memory: axis ",
                   axes.along, " (inputs' contiguous) against axis ", axes.across, " (outputs')",
                   lanes > 1 ? absl::StrCat(", ", lanes, " positions a thread") : "");
  CodeWriter w;
  BeginSource(w, kernel, rows);
  {
    auto body = KernelBlock(w, absl::StrCat(kTile * kRows), kNamePlaceholder, ks);
    w.Line("// ", space.ToString(), dynamic ? " (dim 0: rows)" : "", ": tiles of ", tile.along,
           " along ", axes.along, " x ", tile.across, " along ", axes.across);
    for (size_t i = 0; i < kernel.outputs.size(); ++i) {
      const DType dtype = kernel.outputs[i]->dtype();
      w.Line("__shared__ ", StorageType(dtype), " tile", i, "[", tile.across, "][",
             Pitch(tile, dtype), "];  // [across][along], padded: a column in distinct banks");
    }
    EmitTileOrigin(w, space, axes, tile, dynamic);
    EmitTileLoop(w, space, axes, tile, true, lanes, "computed", dynamic,
                 [&](const IndexExpr& idx, const std::string& x) {
                   ExprEmitter e(&w, lanes, ks);
                   for (size_t i = 0; i < kernel.outputs.size(); ++i) {
                     const Node* out = kernel.outputs[i];
                     const std::string value = StoreConvert(out->dtype(), e.Get(out, idx).At());
                     if (lanes == 1) {
                       w.Line("tile", i, "[y_ + j_][", x, "] = ", value, ";");
                     } else {
                       w.Line("#pragma unroll");
                       w.Line("for (int k = 0; k < ", lanes, "; ++k) tile", i, "[y_ + j_][", x,
                              " + k] = ", value, ";");
                     }
                   }
                 });
    w.Line("__syncthreads();");
    EmitTileLoop(w, space, axes, tile, false, 1, "stored", dynamic,
                 [&](const IndexExpr& idx, const std::string&) {
                   for (size_t i = 0; i < kernel.outputs.size(); ++i) {
                     w.Line("out", OutputSlot(ks, kernel.outputs[i]), "[", LinearOffset(idx, space),
                            "] = tile", i, "[x_][y_ + j_];");
                   }
                 });
  }
  int64_t others = 1;
  for (int d = 0; d < space.rank(); ++d) {
    if (d != axes.along && d != axes.across) others *= space[d];
  }
  const int64_t along_tiles = (space[axes.along] + tile.along - 1) / tile.along;
  const int64_t across_tiles = (space[axes.across] + tile.across - 1) / tile.across;
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.block = kTile * kRows;
  launch.grid[0] = others * along_tiles * across_tiles;
  if (dynamic) {
    if (axes.along == 0) {
      launch.rows_grid = RowsGrid{1, tile.along, others * across_tiles};
    } else if (axes.across == 0) {
      launch.rows_grid = RowsGrid{1, tile.across, others * along_tiles};
    } else {
      launch.rows_grid = RowsGrid{others / space[0] * along_tiles * across_tiles, 1, 1};
    }
  }
  ks.launches.push_back(launch);
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
