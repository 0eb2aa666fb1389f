// Transposing pointwise kernels (fusion/access.h): the space is cut into tiles of 32 x 32
// (64 x 64 for 2-byte outputs) along two axes, `along` (the axis most input bytes are
// contiguous along) and `across` (the outputs' contiguous axis). A block computes its tile
// with consecutive threads along `along`, so those inputs are read at consecutive addresses,
// keeps the values in shared memory, and stores them with consecutive threads along `across`:
// both sides coalesced.
#include <algorithm>
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

// 2-byte outputs take 64 positions along each axis at least that long: a block then moves
// as many bytes as a 32 x 32 tile of 4-byte values where both are (bf16 transpose of [16384,
// 8192] 71% -> 91% of copy on the H100, bench/RESULTS.md, thirty-third session); but 64 input
// rows only where they lie within a 2 MB page: rows 2 MB apart (permute {3, 2, 1, 0} of [64,
// 256, 32, 128] bf16) ran at 71.8% in 64 x 64 tiles, 81.1% in 64 along x 32 across; rows
// 16 KB apart (the transpose) at 90.7% against 86.4% (thirty-fourth session, call 3).
Tile TileOf(const FusedKernel& kernel, const TransposedAxes& axes) {
  const Shape& space = kernel.segments[0];
  const bool narrow = std::all_of(kernel.outputs.begin(), kernel.outputs.end(),
                                  [](const Node* out) { return DTypeSize(out->dtype()) <= 2; });
  if (!narrow) return {};
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

// The position with `along` at at_<along> + `a` and `across` at at_<across> + `c`, in bounds
// under the returned condition.
IndexExpr TilePosition(const Shape& space, const TransposedAxes& axes, const std::string& a,
                       const std::string& c, bool rows, std::string* in_bounds) {
  std::vector<std::string> dims(space.rank(), "0");
  for (int d = 0; d < space.rank(); ++d) {
    if (space[d] > 1) dims[d] = absl::StrCat("i_", d);
  }
  dims[axes.along] = absl::StrCat("(at_", axes.along, " + ", a, ")");
  dims[axes.across] = absl::StrCat("(at_", axes.across, " + ", c, ")");
  *in_bounds = absl::StrCat(dims[axes.along], " < ", Extent(space, axes.along, rows), " && ",
                            dims[axes.across], " < ", Extent(space, axes.across, rows));
  return FromDims(space, std::move(dims), std::vector<bool>(space.rank(), false));
}

// The loop over a thread's positions of the tile, consecutive threads (x_) along `along`
// where `threads_along`, else along `across`, with `body` emitting the work (`what` the
// comment says) at each position in bounds.
template <typename Body>
void EmitTileLoop(CodeWriter& w, const Shape& space, const TransposedAxes& axes, const Tile& t,
                  bool threads_along, const char* what, bool rows, Body body) {
  const int width = threads_along ? t.along : t.across, height = threads_along ? t.across : t.along;
  w.Line("{  // ", what, " with consecutive threads along axis ",
         threads_along ? axes.along : axes.across);
  CodeWriter::Scope scope(&w, "}");
  w.Line("const int x_ = threadIdx.x % ", width, ", y_ = threadIdx.x / ", width, ";");
  w.Line("#pragma unroll");
  auto loop = w.Block("for (int j_ = 0; j_ < ", height, "; j_ += ", kTile * kRows / width, ")");
  std::string in_bounds;
  const IndexExpr idx = threads_along
                            ? TilePosition(space, axes, "x_", "(y_ + j_)", rows, &in_bounds)
                            : TilePosition(space, axes, "(y_ + j_)", "x_", rows, &in_bounds);
  auto guard = w.Block("if (", in_bounds, ")");
  body(idx);
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
  ks.schedule =
      absl::StrCat("tiled ", tile.along, " x ", tile.across, " through shared memory: axis ",
                   axes.along, " (inputs' contiguous) against axis ", axes.across, " (outputs')");
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
    EmitTileLoop(w, space, axes, tile, true, "computed", dynamic, [&](const IndexExpr& idx) {
      ExprEmitter e(&w, 1, ks);
      for (size_t i = 0; i < kernel.outputs.size(); ++i) {
        const Node* out = kernel.outputs[i];
        w.Line("tile", i, "[y_ + j_][x_] = ", StoreConvert(out->dtype(), e.Get(out, idx).At()),
               ";");
      }
    });
    w.Line("__syncthreads();");
    EmitTileLoop(w, space, axes, tile, false, "stored", dynamic, [&](const IndexExpr& idx) {
      for (size_t i = 0; i < kernel.outputs.size(); ++i) {
        w.Line("out", OutputSlot(ks, kernel.outputs[i]), "[", LinearOffset(idx, space), "] = tile",
               i, "[x_][y_ + j_];");
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
