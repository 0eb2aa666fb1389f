// How a normalization over leading or middle axes spreads its columns over a block's
// threads, shared memory and a cluster's blocks (codegen/column_normalization.cc emits it):
// the decisions and the measurements behind them.
#ifndef TESSEL_CODEGEN_COLUMN_SHAPE_H_
#define TESSEL_CODEGEN_COLUMN_SHAPE_H_

#include <cstdint>
#include <vector>

#include "codegen/row_common.h"

namespace tessel::codegen {

// How columns are spread: `width` columns a block, `parts` threads a column, each holding
// `lanes` elements of a `part` of the column in registers and `shared_lanes` more of
// `staged` (its only input read along the columns) in shared memory; `cluster` blocks
// share a column. Shared lanes lie [lane][thread], thread t = part * width + column: lane k
// of every part is a run of rows of the block's tile, row part + k * parts at (k * parts +
// part) * width + column. Each thread copies its own shared lanes, 4 bytes at a time (2-byte
// values a pair of neighbouring columns a copy: pairs()), or, with `runs`, the block copies
// them as 16-byte runs of each row's columns (where such runs lie side by side in memory);
// where `tiled`, the registers' lanes too (the whole tile), read back from it.
struct ColumnShape {
  int width = 32;  // a warp's
  int parts = 1;
  int lanes = 1;
  int shared_lanes = 0;
  const Node* staged = nullptr;
  bool runs = false;
  bool tiled = false;
  int cluster = 1;
  int64_t part = 0;
  bool fits = false;
  int threads() const { return width * parts; }
  // Chunks of `lanes`: the registers' own, then the shared ones a chunk at a time.
  int chunks() const { return 1 + shared_lanes / lanes; }
  // The lanes of each thread in shared memory, and the first one after the registers'.
  int staged_lanes() const { return tiled ? lanes + shared_lanes : shared_lanes; }
  int first_shared_lane() const { return tiled ? lanes : 0; }
  int64_t shared_bytes() const {
    return staged == nullptr ? 0 : int64_t{staged_lanes()} * threads() * DTypeSize(staged->dtype());
  }
  // 2-byte staged values.
  bool two_byte() const { return staged != nullptr && DTypeSize(staged->dtype()) == 2; }
  // 2-byte staged values copied by threads: each copy takes two neighbouring columns' values
  // of a lane.
  bool pairs() const { return two_byte() && !runs; }
  // The shared lanes that hold `beyond` values a thread past its registers' lanes: whole
  // chunks of `lanes`.
  int WholeChunks(int64_t beyond) const {
    return static_cast<int>((beyond + lanes - 1) / lanes * lanes);
  }
};

// The shape for kernel `k` over layout `l` reducing `accs` (fits false where its columns do
// not fit on chip).
ColumnShape ColumnShapeOf(const FusedKernel& k, const RowLayout& l,
                          const std::vector<Accumulator>& accs);

// Whether `s` leaves some lanes of a part past its end (a guard a lane).
bool RaggedParts(const ColumnShape& s, const RowLayout& l);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_COLUMN_SHAPE_H_
