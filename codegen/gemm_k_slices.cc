#include "codegen/gemm_k_slices.h"

#include <algorithm>

namespace tessel::codegen {
namespace {

constexpr int64_t kSms = 132;  // H100 SXM; only shapes the choice

// A thread's accumulators and the consumer warpgroups of a tile (tessel_gemm_sm90_layout).
int Accumulators(const GemmTile& tile) { return tile.swap ? tile.bm / 2 : tile.bn / 2; }
int Consumers(const GemmTile& tile) { return tile.swap ? tile.bn / 64 : tile.bm / 64; }

}  // namespace

int KSlices(const GemmTile& tile, int64_t tiles, int64_t k_steps, int64_t rows) {
  // Where whole tiles leave at least half the SMs idle (16 x 4096 x 4096: 64 swapped tiles of
  // 64 columns for 132 SMs), as many slices as fit one wave, each at least 8 K steps so that
  // it pays for its piece (written and read once, against 8 stages or more). H100, session
  // 26, same kernels otherwise: 16 x 4096 x 4096 in 2 slices 50-52 TFLOP/s against 45-46
  // whole (cuBLASLt about 52), 32 x 4096 x 4096 92-94.5 against 84-88. Not measured better:
  // - swapped tiles mostly past the last row: 1 x 4096 x 4096 2.43-2.50 against 2.61-2.72,
  //   though the same kernel at 16 rows gains (a cause not yet found);
  // - slices over several waves: q/k/v at M = 64 (96 tiles) in 4 slices 0.028 ms against
  //   0.023, SwiGLU's 172 dual tiles in 3 0.082 against 0.072; so did contiguous runs of K
  //   steps across tiles (stream-K), 0.027;
  // - tiles of more than 32 accumulators a thread (not tried: their pieces cost more).
  if (Accumulators(tile) > 32 || tiles <= 0 || 2 * tiles > kSms) return 1;
  if (tile.swap && 2 * rows < tile.bm) return 1;
  return static_cast<int>(std::max<int64_t>(1, std::min({kSms / tiles, int64_t{8}, k_steps / 8})));
}

int64_t KSliceWorkspaceBytes(const GemmTile& tile, bool dual, int64_t tiles, int slices) {
  const int64_t consumers = Consumers(tile);
  const int64_t piece = (dual ? 2 : 1) * Accumulators(tile) / 4 * 128 * 16;
  const int64_t counters = CeilDiv(tiles * consumers * 8, 256) * 256;
  return counters + tiles * slices * consumers * piece;
}

}  // namespace tessel::codegen
