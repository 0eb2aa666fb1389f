#include "codegen/gemm_k_slices.h"

#include <algorithm>

namespace tessel::codegen {
namespace {

constexpr int64_t kSms = 132;  // H100 SXM; only shapes the choice (the kernel reads its grid)

// A thread's accumulators and the consumer warpgroups of a tile (tessel_gemm_sm90_layout).
int Accumulators(const GemmTile& tile) { return tile.swap ? tile.bm / 2 : tile.bn / 2; }
int Consumers(const GemmTile& tile) { return tile.swap ? tile.bn / 64 : tile.bm / 64; }

// Where whole tiles leave at least half the SMs idle (16 x 4096 x 4096: 64 swapped tiles of
// 64 columns for 132 SMs), as many slices as fit one wave. H100, session 26, same kernels
// otherwise: 16 x 4096 x 4096 in 2 slices 50-52 TFLOP/s against 45-46 whole (cuBLASLt about
// 52), 32 x 4096 x 4096 92-94.5 against 84-88. Not measured better:
// - swapped tiles mostly past the last row: 1 x 4096 x 4096 2.43-2.50 against 2.61-2.72,
//   though the same kernel at 16 rows gains (a cause not yet found);
// - slices over several waves: q/k/v at M = 64 (96 tiles) in 4 slices 0.028 ms against
//   0.023, SwiGLU's 172 dual tiles in 3 0.082 against 0.072; so did contiguous runs of K
//   steps across tiles (stream-K), 0.027;
// - tiles of more than 32 accumulators a thread (not tried: their pieces cost more).
int FewTileSlices(const GemmTile& tile, int64_t tiles, int most, int64_t rows) {
  if (Accumulators(tile) > 32 || 2 * tiles > kSms) return 1;
  if (tile.swap && 2 * rows < tile.bm) return 1;
  return static_cast<int>(std::min<int64_t>(kSms / tiles, most));
}

}  // namespace

int TailSlices(int64_t cut, int64_t blocks, int most, int64_t max_pieces) {
  int best = 1;
  int64_t best_rounds = 1;
  if (cut == 0) return best;
  for (int s = 2; s <= most && cut * s <= max_pieces; ++s) {
    const int64_t rounds = (cut * s + blocks - 1) / blocks;
    if (rounds * best < best_rounds * s) best = s, best_rounds = rounds;
  }
  return best;
}

KSlicing ChooseKSlices(const GemmTile& tile, int64_t tiles, int64_t k_steps, int64_t rows) {
  // Slices of at least 8 K steps, so that each pays for its piece (written and read once,
  // against 8 stages or more).
  const int most = static_cast<int>(std::min<int64_t>(8, k_steps / 8));
  KSlicing k;
  if (tiles <= 0 || most < 2) return k;
  if (tiles < kSms) {
    k.slices = FewTileSlices(tile, tiles, most, rows);
    k.all = k.slices > 1;
    k.pieces = k.slices > 1 ? tiles * k.slices : 0;
    return k;
  }
  // Between one and two rounds of 128-row tiles: the second round's `cut` tiles in slices
  // over one wave of pieces. H100, session 29, sustained: 1536 x 4096 x 4096 (192 tiles, 60
  // in 2 slices) 568-575 TFLOP/s against 544-549 whole (the kernel alone 81 us against 92;
  // since the forty-seventh session it takes whole waves of 128-wide tiles, faster still:
  // gemm_sm90_tiles.cc); tall outputs of one or two tile columns still come here;
  // not worth it measured: 2560 x 4096 x 4096 (3 rounds) 583-586 against 581-586, SwiGLU at
  // M = 1024 (688 dual tiles, 28 in 4 slices) 0.309-0.310 ms against 0.310-0.312 (the kernel
  // alone 273 us against 279: a sustained GEMM is held by power, and the idle SMs of a last
  // round leave it to the others), SwiGLU at M = 64 (64-row tiles, held by DRAM) 2% slower.
  if (tile.bm != 128 || tile.swap || tiles >= 2 * kSms) return k;
  const int slices = TailSlices(tiles % kSms, kSms, most, kSms);
  if (slices == 1) return k;
  k.slices = slices;
  k.pieces = kSms;
  return k;
}

KSlicing SlicedAtRunTime(KSlicing k) {
  if (k.slices == 1) return k;
  k.all = false;
  k.pieces = kSms;  // a last round's cut is smaller than the grid, at most one block an SM
  return k;
}

int64_t KSliceWorkspaceBytes(const GemmTile& tile, bool dual, int64_t pieces) {
  const int64_t consumers = Consumers(tile);
  const int64_t piece = (dual ? 2 : 1) * Accumulators(tile) / 4 * 128 * 16;
  const int64_t counters = CeilDiv(pieces * consumers * 8, 256) * 256;
  return counters + pieces * consumers * piece;
}

}  // namespace tessel::codegen
