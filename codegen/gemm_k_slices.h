// K slices for the Hopper GEMM (device/gemm_sm90_fixup.cuh): how many even slices of each
// tile's K steps a walk deals out to the SMs, and the workspace the slices' sums take.
#ifndef TESSEL_CODEGEN_GEMM_K_SLICES_H_
#define TESSEL_CODEGEN_GEMM_K_SLICES_H_

#include <cstdint>

#include "codegen/gemm_common.h"

namespace tessel::codegen {

// The slices of each tile's `k_steps` K steps for a walk over `tiles` tiles of outputs of at
// most `rows` rows: 1 (whole tiles) unless whole tiles would leave half the SMs idle.
int KSlices(const GemmTile& tile, int64_t tiles, int64_t k_steps, int64_t rows);

// The workspace bytes of the counters and pieces of `tiles` tiles cut into `slices`
// (tessel_gemm_sm90_fixup_layout); `dual`: two products a tile.
int64_t KSliceWorkspaceBytes(const GemmTile& tile, bool dual, int64_t tiles, int slices);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GEMM_K_SLICES_H_
