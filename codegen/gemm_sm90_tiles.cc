// The Hopper GEMM's tile: its rows and columns (or the operands traded, few rows), its
// ring's stages, and its walk's K slices, chosen from the outputs' extents. The numbers that
// shaped each rule are in its comment; bench/RESULTS.md has the runs.
#include "codegen/gemm_sm90_tiles.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "codegen/gemm_staging.h"

namespace tessel::codegen {
// The consumers' staging tiles (one each): the tile's matmul values in 16 bits (both
// products' for a dual GEMM). TF32 kernels have none (the consumers run the epilogue from
// their accumulators).
int StagingBytes(const GemmTile& tile, bool tf32, bool dual) {
  return tf32 ? 0 : tile.bm * tile.bn * 2 * (dual ? 2 : 1);
}

// A stage of the ring: A's block and B's (both B's for a dual GEMM), `parts` copies of each.
int StageBytes(const GemmTile& tile, int parts, bool dual) {
  return (tile.bm + tile.bn * (dual ? 2 : 1)) * tile.bk * 2 * parts;
}

namespace {

constexpr int kSharedLimit = 227 * 1024;  // per block on sm_90
constexpr int kSms = 132;                 // H100 SXM; only shapes the tile choice

// As many stages as shared memory holds beside the staging tiles, at most 16, and at most 8
// on 16-bit tiles of 64 rows or fewer (few rows: streaming B is the whole cost, and more
// stages in flight measured slower). H200, forty-first session (bench/RESULTS.md): q/k/v at
// M = 64, its kernel alone, 15.4-15.8 us on 13 stages against 14.8-15.1 on 8; in
// gemm_group_bench at M = 16 (16 stages before) q/k/v 17.2 -> 16.9 us, SwiGLU's gate and up
// 49.7 -> 49.2. (TF32 tiles not measured.)
int StagesThatFit(const GemmTile& tile, bool tf32, int parts, bool dual) {
  const int most = tile.bm <= 64 && !tf32 ? 8 : 16;
  return std::min<int>(
      most, (kSharedLimit - 2048 - StagingBytes(tile, tf32, dual)) / StageBytes(tile, parts, dual));
}

}  // namespace

GemmTile ChooseGemmTile(const std::vector<GemmExtent>& outputs, int64_t batch, bool tf32, int parts,
                        bool dual, int64_t least_rows, bool a_box_moves) {
  GemmTile tile;
  // Few rows: one consumer warpgroup, and stages half the size, so that more of B is in flight
  // where streaming B is the whole cost. At most 64 rows; on a kernel for fixed rows whose
  // last A box moves, fewer than 128: from 65 rows that takes two tile rows, the second's A
  // box read from up to 56 rows above it (tessel_gemm_sm90_a_shift), where one tile of 128
  // rows would fill the rows past m out of bounds, slowly (H200, forty-third session: 65 to
  // 127 x 4096 x 4096, weight not in L2, 1.65-2.20 TB/s of weight on a 128-row tile,
  // 2.44-2.51 on two of 64; 64 rows 2.54). A kernel that takes its rows (`least_rows` > 0)
  // keeps the bucket 64..127 on 64-row tiles by its fewest rows, with K cut at run time
  // (ChooseWalk), and `a_box_moves` false: measured the same way, 2.26-2.29 TB/s at 65-127
  // rows (1.47-2.29 before its A boxes moved in bounds). (fusion/gemm_groups.cc's launch
  // estimate keeps nominal tiles.)
  int64_t most_rows = 0, narrowest = outputs[0].n;
  for (const GemmExtent& o : outputs) {
    most_rows = std::max(most_rows, o.m);
    narrowest = std::min(narrowest, o.n);
  }
  const int64_t rows = least_rows > 0 ? least_rows : most_rows;
  if (rows <= 64 || (rows < 128 && a_box_moves)) tile.bm = 64;
  // The widest tile that still gives every SM a tile and is not more than twice as wide as
  // the narrowest output (sibling GEMMs: each starts a tile column of its own); 64 when none.
  // (Two parts of each operand, or two B's, a stage: at most 128 wide, so that three stages
  // fit, and a dual GEMM's two accumulators take the registers of one 256 wide.) A round of
  // 128-row tiles that leaves at most 1/16 of the SMs idle counts as giving each a tile: one
  // round of the wider tiles beats two of the narrower. H200, fifty-third session, against
  // the same binaries without, alternating: 1024 x 4096 x 11008 (an MLP's down projection)
  // on 128 tiles of 128 x 256 against 256 of 128 x 128, 94.1-96.9% -> 99.6-101.4% of
  // cuBLASLt; the whole SwiGLU MLP at M = 1024 0.441-0.443 -> 0.429 ms; loop_bench's MLP
  // block at batch 4096 (its 4096 x 1024 GEMM) 521-524 -> 530-534 TFLOP/s.
  // (TF32 tiles not measured: they keep the rule for every SM.)
  const int64_t full_round = tile.bm == 128 && !tf32 ? kSms - kSms / 16 : kSms;
  auto tiles = [&](int bn) {
    int64_t all = 0;
    for (const GemmExtent& o : outputs) all += CeilDiv(o.m, tile.bm) * CeilDiv(o.n, bn) * batch;
    return all;
  };
  auto fits = [&](int bn) { return (parts == 1 && !dual) || bn <= 128; };
  for (int bn : {256, 128, 64}) {
    if (!fits(bn)) continue;
    tile.bn = bn;
    if (tiles(bn) >= full_round && narrowest > bn / 2) break;
  }
  const auto waves = [&](int bn) { return CeilDiv(tiles(bn), kSms); };
  // Few rows stream B from DRAM, which half the SMs saturate: a wider tile that still gives
  // half the SMs a tile wins where it takes fewer rounds. H200, fifty-second session, against
  // the same binaries without the rule, alternating: SwiGLU's gate and up at M = 64 (F =
  // 11008) on 86 dual tiles of 64 x 128 (4 stages, one round) against 172 of 64 x 64 (1.3
  // rounds) 0.0510 -> 0.0463-0.0471 ms (84% -> 91-92.5% of the weight-read roofline); 64 x
  // 14336 x 4096 on 112 of 64 x 128 against 224, 220 -> 235-237 TFLOP/s (90% -> 96.5-96.9%
  // of cuBLASLt); 64 x 32000 x 4096 on 125 of 64 x 256 the same as on 250 of 64 x 128; 8
  // experts of 1..50 rows x 2048 x 1408 on 88 grouped tiles of 64 x 128, 0.0179-0.0211 ->
  // 0.0133-0.0182 ms. (TF32 tiles not measured.)
  if (tile.bm == 64 && !tf32) {
    for (int bn : {256, 128}) {
      if (bn > tile.bn && fits(bn) && 2 * tiles(bn) >= kSms && narrowest > bn / 2 &&
          waves(bn) < waves(tile.bn)) {
        tile.bn = bn;
        break;
      }
    }
  }
  // Whole waves: where the last wave of 256-wide tiles would leave many SMs idle, 128-wide
  // ones may finish sooner though each does less per byte staged (counted at 90%: a guess,
  // checked on q/k/v at M = 1024: 192 tiles of 256 are 1.45 waves, 384 of 128 are 2.9, 11%
  // faster; H200, forty-seventh session, single GEMMs on 256-wide tiles against 128-wide:
  // the q/k/v weights concatenated at M = 1024 0.0875 -> 0.0818 ms, 1536 x 4096 x 4096
  // 93.9% -> 100.2% of cuBLASLt (on 256 its second round's tiles took K slices), 2560 x
  // 4096 x 4096 91.1% -> 95.5%). A tie goes to 128 too: H200, fiftieth session, 8 experts of
  // 512..4096 x 2048 x 1408 (5 waves of 256, the last tile column half past N, against 9 of
  // 128) 0.1300-0.1313 -> 0.1284-0.1286 ms.
  if (tile.bn == 256 && tile.bm == 128 && 10 * waves(128) * 128 <= 9 * waves(256) * 256) {
    tile.bn = 128;
  }
  // A dual GEMM walking more than two rounds reads each band's A again in every round, and
  // two B's once a band: its TMA loads ask L2 to keep A's lines (evict_last) and to evict B's
  // first. H200, fifty-first session (the hints on every GEMM, timed twice alternating with
  // the same kernels without): SwiGLU's gate and up at M = 1024 (688 tiles) 0.296 ->
  // 0.291-0.292 ms, at M = 8192 679 -> 687 TFLOP/s. Single GEMMs measured no better (8192^3
  // 690 -> 687, 4096 x 14336 x 4096 684 -> 685-690), and a weight that stays in L2 between
  // calls lost it (16 x 4096 x 4096 65 -> 57 TFLOP/s).
  tile.keep_a = dual && tiles(tile.bn) > 2 * kSms;
  tile.stages = StagesThatFit(tile, tf32, parts, dual);
  return tile;
}

std::optional<GemmTile> ChooseSwappedTile(const std::vector<GemmExtent>& outputs, int64_t batch,
                                          bool dual) {
  GemmTile tile;
  tile.swap = true;
  int64_t most_rows = 0;
  for (const GemmExtent& o : outputs) most_rows = std::max(most_rows, o.m);
  if (most_rows > 128 || (most_rows > 32 && most_rows <= 64)) return std::nullopt;
  tile.bm = most_rows <= 16 ? 16 : most_rows <= 32 ? 32 : 128;
  // Two consumers (128 columns) where that still gives every SM a tile; else one, so that
  // twice the blocks stream B (16 x 4096 x 4096: 64 tiles of 64 columns).
  auto tiles = [&](int bn) {
    int64_t all = 0;
    for (const GemmExtent& o : outputs) all += CeilDiv(o.m, tile.bm) * CeilDiv(o.n, bn) * batch;
    return all;
  };
  tile.bn = tiles(128) >= kSms ? 128 : 64;
  // 65-128 rows: one tile row reads B once, where two of 64 rows read it twice, but only where
  // whole tiles keep at least half the SMs busy (a thread's 64 accumulators take no K
  // slices). H200, session 44, each size on its own kernel: q/k/v at M = 100 (96 tiles)
  // 0.69x -> 0.90x of cuBLASLt on the weights concatenated, SwiGLU at M = 100 (172 dual
  // tiles) 0.87x -> 0.97x of cuBLASLt's two GEMMs, 100 x 14336 x 4096 (224 tiles) 79% -> 89%;
  // 100 x 4096 x 4096 (64 tiles, in two K slices) 246 -> 226 TFLOP/s, so it keeps two tile
  // rows of 64. (33-64 rows measured the same on either tile: one tile row of 64 already
  // reads B once.)
  if (tile.bm == 128 && 2 * tiles(64) < kSms) return std::nullopt;
  tile.stages = StagesThatFit(tile, false, 1, dual);
  return tile;
}

GemmTile ChooseGemmTile(int64_t m, int64_t n, int64_t batch, bool tf32, int parts) {
  return ChooseGemmTile({GemmExtent{m, n}}, batch, tf32, parts, false);
}

// A kernel that takes its rows serves a bucket of batches, [least_m, m]. Its tile suits the
// most rows, unless the fewest would take a tile of fewer rows (64 rather than 128, or a
// few-row tile): then that tile, with K slices chosen for the fewest rows and cut at run time
// for the tiles a batch has, so that more rows never need more pieces than the workspace
// holds. Its columns suit the most rows either way. H200, session 42, in a loop over batch
// sizes: 64 x 4096 x 4096 105 TFLOP/s on the tile for 127 rows, 157 on 64-row tiles; 32 x
// 4096 x 4096 69 on 64-row tiles, 81 on 32-row ones; the MLP block at batch 64 21.2-21.5 us
// against 17.1-17.6. Buckets whose fewest rows take the same tile keep the kernel for the
// most: at batch 200 its K cut at run time was 4% slower, and columns chosen for the fewest
// rows (narrower) 4.6% slower at batch 512.
WalkChoice ChooseWalk(const std::vector<GemmProblem>& walk, bool tf32, bool a_mn, int splits,
                      bool dual, bool grouped) {
  const GemmProblem& p = walk[0];
  const int64_t batch = p.batch.numel();
  std::vector<GemmExtent> most, least;
  for (const GemmProblem& part : walk) {
    most.push_back({part.m, part.n});
    least.push_back({part.least_m, part.n});
  }
  // tessel_gemm_sm90_a_shift's kernels (K-major 16-bit A, not grouped), for fixed rows.
  const bool a_box_moves = !tf32 && !a_mn && !grouped && !p.rows_argument;
  auto tile_for = [&](const std::vector<GemmExtent>& rows, int64_t least_rows) {
    std::optional<GemmTile> swapped;
    if (!tf32 && !a_mn) swapped = ChooseSwappedTile(rows, batch, dual);
    // A swapped tile row of 128 pays by reading B once: not for a bucket past 128 rows.
    if (swapped && swapped->bm == 128 && p.m > 128) swapped.reset();
    return swapped ? *swapped
                   : ChooseGemmTile(most, batch, tf32, splits, dual, least_rows, a_box_moves);
  };
  WalkChoice choice{tile_for(most, 0), KSlicing{}};
  const GemmTile for_least = tile_for(least, p.least_m);
  const bool by_least = for_least.bm != choice.tile.bm || for_least.swap != choice.tile.swap;
  if (by_least) choice.tile = for_least;
  // K known at run time (the batch of a weight gradient): no K slices, whose cut is planned
  // from a K fixed in the source (where they would pay, SlicesTheMostK, the kernel is made
  // for each batch size instead).
  if (grouped || tf32 || p.k_argument) return choice;
  const int64_t rows = by_least ? p.least_m : p.m;
  int64_t tiles = 0;
  for (const GemmProblem& part : walk) tiles += CeilDiv(part.n, choice.tile.bn);
  tiles *= CeilDiv(rows, choice.tile.bm) * batch;
  const int64_t k_steps = CeilDiv(p.k, choice.tile.bk);  // 16-bit: 128-byte rows
  choice.cuts = ChooseKSlices(choice.tile, tiles, k_steps, rows);
  if (by_least) choice.cuts = SlicedAtRunTime(choice.cuts);
  return choice;
}

bool SlicesTheMostK(const GemmProblem& p) {
  GemmProblem fixed = p;
  fixed.k_argument = false;
  return ChooseWalk({fixed}, false, ReadsMnMajor(p.a, true), 1, false, false).cuts.slices > 1;
}

}  // namespace tessel::codegen
