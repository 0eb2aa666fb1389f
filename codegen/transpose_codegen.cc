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

int64_t TileBytes(const FusedKernel& kernel, int tile) {
  int64_t bytes = 0;
  for (const Node* out : kernel.outputs) bytes += tile * (tile + 1) * DTypeSize(out->dtype());
  return bytes;
}

// 2-byte outputs take tiles of 64 x 64 where both axes are that long: a block then moves as
// many bytes as a 32 x 32 tile of 4-byte values.
int TileOf(const FusedKernel& kernel, const TransposedAxes& axes) {
  const Shape& space = kernel.segments[0];
  const bool narrow = std::all_of(kernel.outputs.begin(), kernel.outputs.end(),
                                  [](const Node* out) { return DTypeSize(out->dtype()) <= 2; });
  const bool long_axes = space[axes.along] >= 2 * kTile && space[axes.across] >= 2 * kTile;
  return narrow && long_axes && TileBytes(kernel, 2 * kTile) <= kMaxTileBytes ? 2 * kTile : kTile;
}

// The extent of axis `d` in the source: the rows argument for a dynamic leading axis.
std::string Extent(const Shape& space, int d, bool rows) {
  return rows && d == 0 ? "(index_t)rows" : absl::StrCat(space[d]);
}

// The tile's position from blockIdx.x: `across` fastest, then `along`, then the other axes
// from the innermost out (the outermost takes the rest, so its extent is never needed).
void EmitTileOrigin(CodeWriter& w, const Shape& space, const TransposedAxes& axes, int tile,
                    bool rows) {
  w.Line("index_t b_ = blockIdx.x;");
  for (int d : {axes.across, axes.along}) {
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
void EmitTileLoop(CodeWriter& w, const Shape& space, const TransposedAxes& axes, int tile,
                  bool threads_along, const char* what, bool rows, Body body) {
  w.Line("// ", what, " with consecutive threads along axis ",
         threads_along ? axes.along : axes.across);
  w.Line("#pragma unroll");
  auto loop = w.Block("for (int j_ = 0; j_ < ", tile, "; j_ += ", kTile * kRows / tile, ")");
  std::string in_bounds;
  const IndexExpr idx = threads_along
                            ? TilePosition(space, axes, "x_", "(y_ + j_)", rows, &in_bounds)
                            : TilePosition(space, axes, "(y_ + j_)", "x_", rows, &in_bounds);
  auto guard = w.Block("if (", in_bounds, ")");
  body(idx);
}

}  // namespace

TransposedAxes TransposeTiles(const FusedKernel& kernel) {
  if (TileBytes(kernel, kTile) > kMaxTileBytes) return {};
  return TransposedAccess(kernel, kMinExtent);
}

KernelSource GenerateTransposed(const FusedKernel& kernel, const TransposedAxes& axes,
                                const DynamicRows* rows) {
  KernelSource ks = NewKernelSource(kernel);
  ks.takes_rows = rows != nullptr;
  const Shape& space = kernel.segments[0];
  const bool dynamic = rows != nullptr;
  const int tile = TileOf(kernel, axes);
  ks.schedule =
      absl::StrCat("tiled ", tile, " x ", tile, " through shared memory: axis ", axes.along,
                   " (inputs' contiguous) against axis ", axes.across, " (outputs')");
  CodeWriter w;
  BeginSource(w, kernel, rows);
  {
    auto body = KernelBlock(w, absl::StrCat(kTile * kRows), kNamePlaceholder, ks);
    w.Line("// ", space.ToString(), dynamic ? " (dim 0: rows)" : "", ": tiles of ", tile, " along ",
           axes.along, " x ", tile, " along ", axes.across);
    for (size_t i = 0; i < kernel.outputs.size(); ++i) {
      w.Line("__shared__ ", StorageType(kernel.outputs[i]->dtype()), " tile", i, "[", tile, "][",
             tile + 1, "];  // [across][along]: +1 keeps a column in distinct banks");
    }
    w.Line("const int x_ = threadIdx.x % ", tile, ", y_ = threadIdx.x / ", tile, ";");
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
  auto tiles = [tile](int64_t n) { return (n + tile - 1) / tile; };
  Launch launch;
  launch.entry = kNamePlaceholder;
  launch.block = kTile * kRows;
  launch.grid[0] = others * tiles(space[axes.along]) * tiles(space[axes.across]);
  if (dynamic) {
    if (axes.along == 0 || axes.across == 0) {
      const int other_tiled = axes.along == 0 ? axes.across : axes.along;
      launch.rows_grid = RowsGrid{1, tile, others * tiles(space[other_tiled])};
    } else {
      launch.rows_grid =
          RowsGrid{others / space[0] * tiles(space[axes.along]) * tiles(space[axes.across]), 1, 1};
    }
  }
  ks.launches.push_back(launch);
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
