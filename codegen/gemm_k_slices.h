// K slices for the Hopper GEMM (device/gemm_sm90_fixup.cuh): which tiles of a walk have their
// K steps cut into even slices that several SMs multiply, and the workspace their sums take.
#ifndef TESSEL_CODEGEN_GEMM_K_SLICES_H_
#define TESSEL_CODEGEN_GEMM_K_SLICES_H_

#include <cstdint>

#include "codegen/gemm_common.h"

namespace tessel::codegen {

// A walk's K slices: each cut tile's slices (the kernel's K_SLICES; 1: whole tiles), whether
// every tile is cut so (CUT_ALL: fewer tiles than SMs), and the pieces the workspace holds
// (MAX_PIECES). Else the kernel cuts the tiles that whole tiles would leave to a last, partly
// idle round, in at most K_SLICES slices that it picks from its grid (TailSlices).
struct KSlicing {
  int slices = 1;
  bool all = false;
  int64_t pieces = 0;
};

// For a walk over `tiles` tiles of outputs of at most `rows` rows, `k_steps` K steps each.
KSlicing ChooseKSlices(const GemmTile& tile, int64_t tiles, int64_t k_steps, int64_t rows);

// `k` for a kernel whose tile count is known only at run time (it takes its rows): the same
// most slices a tile, cut as a last round's tiles are (the kernel's tessel_gemm_sm90_plan_cuts
// picks from its tiles and grid), so that more rows than `k` was chosen for never need more
// pieces than the workspace holds.
KSlicing SlicedAtRunTime(KSlicing k);

// The slices of each of `cut` tiles over `blocks` blocks that end the walk soonest, at most
// `most` and `max_pieces` pieces in all: the host's copy of tessel_gemm_sm90_tail_slices.
int TailSlices(int64_t cut, int64_t blocks, int most, int64_t max_pieces);

// The shared bytes of the kernel's walk with K slices (tessel_gemm_sm90_cuts).
inline constexpr int kKSliceWalkBytes = 48;

// The workspace bytes of the counters and `pieces` pieces (tessel_gemm_sm90_fixup_layout);
// `dual`: two products a tile.
int64_t KSliceWorkspaceBytes(const GemmTile& tile, bool dual, int64_t pieces);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GEMM_K_SLICES_H_
