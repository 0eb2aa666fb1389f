// Index math for generated kernels: the position at which a value is needed, as C
// expressions per dimension. Views and broadcasts transform positions instead of moving
// data, which is how they fuse for free. FusedKernel -> KernelSource.
#ifndef TESSEL_CODEGEN_INDEX_EXPR_H_
#define TESSEL_CODEGEN_INDEX_EXPR_H_

#include <string>
#include <vector>

#include "core/node.h"
#include "core/shape.h"

namespace tessel::codegen {

struct IndexExpr {
  std::vector<std::string> dims;  // one expression per dimension of the value's shape
  std::vector<bool> lane;         // whether dims[i] differs between a thread's lanes
  // The row-major linear position when known directly (identity-like paths), else "".
  std::string linear;
  bool linear_lane = false;
  // Lanes come in groups of this many consecutive, aligned linear positions (1: no such
  // guarantee): loads and stores may then be vectors.
  int vector_width = 1;
  // Lanes that step dims[lane_dim] by one, in groups of lane_group whose first lane's
  // coordinate is a multiple of lane_group (-1: no such guarantee). A permute carries it to
  // its input, where it makes vector_width if that dimension is the innermost (AlongDim);
  // every other view rebuilds the position without it. Key() leaves both out: they follow
  // from `dims`.
  int lane_dim = -1;
  int lane_group = 1;
  // Conditions that must hold before memory is read or written at this position (empty:
  // always valid): `lane_guard` per lane, using `k` (lanes past the end of a row or tile),
  // `thread_guard` per thread (rows past a tile's edge). A position derived from this one keeps
  // the thread guard, and the lane guard while it still varies by lane.
  std::string lane_guard, thread_guard;

  bool PerLane() const;
  // The condition that applies at this position: both guards, or only the thread's when the
  // position is the same for every lane.
  std::string Guard() const;
  std::string Key() const;
};

// `idx` (a position in `shape`, without a `linear` form) with lanes stepping dimension `dim`
// in aligned groups of `group`: consecutive linear positions (vector_width `group`) where
// `dim` is the innermost dimension of extent > 1 and a multiple of `group`.
IndexExpr AlongDim(IndexExpr idx, const Shape& shape, int dim, int group);
// The position `linear` (an expression) in `shape`, e.g. the loop index of a pointwise kernel.
IndexExpr FromLinear(const Shape& shape, const std::string& linear, bool lane, int vector_width);
// A position given per dimension.
IndexExpr FromDims(const Shape& shape, std::vector<std::string> dims, std::vector<bool> lane);

// Where the operand of shape `in` (NumPy-broadcast to `out`) is read for position `idx` of out.
IndexExpr Broadcast(const IndexExpr& idx, const Shape& out, const Shape& in);
// Where the input of a view node is read for position `idx` of the node.
IndexExpr ThroughView(const Node& view, const IndexExpr& idx);
// `to`, a position derived from `from`, with the guards it inherits.
IndexExpr WithGuards(IndexExpr to, const IndexExpr& from);

// The same element seen in another shape of as many elements (a reshape, or a reduction
// over extent-1 axes): the linear position carries over.
IndexExpr Reshaped(const IndexExpr& idx, const Shape& from, const Shape& to);

// The row-major linear offset of `idx` in a contiguous buffer of `shape`.
std::string LinearOffset(const IndexExpr& idx, const Shape& shape);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_INDEX_EXPR_H_
