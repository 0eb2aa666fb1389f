// The Hopper GEMM's tile and its walk's K slices, chosen from the outputs' extents
// (gemm_sm90_codegen.cc writes the kernel around them).
#ifndef TESSEL_CODEGEN_GEMM_SM90_TILES_H_
#define TESSEL_CODEGEN_GEMM_SM90_TILES_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "codegen/gemm_common.h"
#include "codegen/gemm_k_slices.h"

namespace tessel::codegen {

// The consumers' staging tiles (one each): the tile's matmul values in 16 bits (both
// products' for a dual GEMM). TF32 kernels have none.
int StagingBytes(const GemmTile& tile, bool tf32, bool dual);
// A stage of the ring: A's block and B's (both B's for a dual GEMM), `parts` copies of each.
int StageBytes(const GemmTile& tile, int parts, bool dual);

// The tile for an m x n output with `batch` entries (a heuristic: see gemm_sm90_tiles.cc).
// TF32 kernels keep no staging tiles: more stages fit; `parts`: copies of each operand a
// stage holds (2 for three TF32 products).
GemmTile ChooseGemmTile(int64_t m, int64_t n, int64_t batch, bool tf32 = false, int parts = 1);
// ... for the outputs of several GEMMs (siblings, grouped), each starting tiles of its own;
// `dual`: two B's a stage and two products a tile (GemmForm::kDual).
struct GemmExtent {
  int64_t m = 0, n = 0;
};
// `least_rows`: the fewest rows a kernel that takes its rows serves (0: the outputs'), which
// decide the tile's rows; its columns suit the outputs' (most) rows. `a_box_moves`: a kernel
// for fixed rows that moves a last tile row's A box up into A's rows
// (tessel_gemm_sm90_a_shift), which makes 64-row tiles pay up to 127 rows.
GemmTile ChooseGemmTile(const std::vector<GemmExtent>& outputs, int64_t batch, bool tf32, int parts,
                        bool dual, int64_t least_rows = 0, bool a_box_moves = false);
// Few rows (decoding a handful of tokens): the Hopper kernel's SWAP tile, which puts the
// rows in wgmma's N (16, 32 or 128 a tile) and 64 or 128 columns of B in its M, so that few
// padding rows are multiplied and B is read once. nullopt where some output has more than
// 128 rows, where the most rows are 33-64, or where a 128-row tile's whole tiles would keep
// fewer than half the SMs busy. `dual`: two B's a stage.
std::optional<GemmTile> ChooseSwappedTile(const std::vector<GemmExtent>& outputs, int64_t batch,
                                          bool dual = false);

// A walk's tile and K slices.
struct WalkChoice {
  GemmTile tile;
  KSlicing cuts;
};
// The tile and K slices of the kernel over `walk` (sibling parts, a dual GEMM's, or a grouped
// GEMM's problems); `splits`: copies of each operand a stage holds.
WalkChoice ChooseWalk(const std::vector<GemmProblem>& walk, bool tf32, bool a_mn, int splits,
                      bool dual, bool grouped);
// Whether a GEMM whose K is the rows argument (`p.k` the most it serves) would have its tiles'
// K cut into slices were it made for that K: few tiles over a long K (a small weight's
// gradient over a large batch), where a kernel for each batch size runs faster.
bool SlicesTheMostK(const GemmProblem& p);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GEMM_SM90_TILES_H_
