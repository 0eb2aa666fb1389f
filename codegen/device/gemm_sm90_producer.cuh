// tessel device library: the Hopper GEMM's layout, its walk over output tiles and its producer
// (the TMA loads of each stage), handed to NVRTC as "tessel/gemm_sm90_producer.cuh" and
// included by tessel/gemm_sm90.cuh, whose header says what the configuration C provides.
#pragma once
#include "tessel/gemm_sm90_output.cuh"
#include "tessel/ptx.cuh"

// The walk's cut (K_SLICES > 1 without CUT_ALL), worked out once a block by
// tessel_gemm_sm90_plan_cuts and kept in shared memory, where every walk reads it (registers are
// short across a consumer's mainloop, and the divisions would delay each block's first loads): the
// first `whole` tiles whole, the `cut` after them in `slices` slices each, slice s from K step
// first[s].
struct tessel_gemm_sm90_cuts {
  int whole, cut, slices;
  int first[9];
};

template <class C>
struct tessel_gemm_sm90_layout {
  static constexpr int kRowBytes = 128;  // a stage's rows of K: 64 16-bit values, 32 floats
  static constexpr int kParts = C::SPLIT ? 2 : 1;  // copies of each operand (SPLIT)
  static constexpr int kAPart = C::BM * kRowBytes, kBPart = C::BN * kRowBytes;
  static constexpr int kABytes = kParts * kAPart;  // one stage of A
  static constexpr int kBBytes = (C::DUAL ? 2 : 1) * kParts * kBPart;
  static constexpr int kStageBytes = kABytes + kBBytes;
  // Warpgroups of m64 wgmmas: one per 64 rows of the tile (SWAP: per 64 columns).
  static constexpr int kConsumers = C::SWAP ? C::BN / 64 : C::BM / 64;
  // Each consumer thread's accumulators: BN / 2 (SWAP: BM / 2).
  static constexpr int kAccs = C::SWAP ? C::BM / 2 : C::BN / 2;
  // Warps 1-3 run the epilogue from staging tiles (one consumer's block, 16-bit).
  static constexpr bool kEpilogueWarps = !C::TMA_STORE && !C::TF32;
  using Staging = tessel_gemm_sm90_staging_shape<C>;
  static constexpr int kStagingBytes = C::TF32 ? 0 : (C::DUAL ? 2 : 1) * Staging::kTileBytes;
  // 1024 bytes of slack to align the ring to the 128-byte swizzle's 1024-byte atom; the
  // ring; a staging tile per consumer; the barriers (full and empty per stage, staged and
  // drained per consumer); a word per consumer for K slices' verdicts (gemm_sm90_fixup.cuh),
  // and their walk's cut.
  static constexpr int kSmemBytes =
      1024 + C::STAGES * kStageBytes + kConsumers * kStagingBytes + (2 * C::STAGES + 5) * 8 +
      (C::K_SLICES > 1 && !C::CUT_ALL ? (int)sizeof(tessel_gemm_sm90_cuts) : 0);
  static constexpr int kKSteps = (C::K + C::BK - 1) / C::BK;
  static_assert((C::SWAP ? (C::BN == 128 || C::BN == 64) : (C::BM == 128 || C::BM == 64)) &&
                    C::BK * (C::TF32 ? 4 : 2) == kRowBytes,
                "one or two consumer warpgroups of m64, 128-byte rows");
  static_assert(!C::SWAP || ((C::BM == 16 || C::BM == 32 || C::BM == 128) && !C::A_MN && !C::TF32),
                "swapped tiles: 16, 32 or 128 K-major rows of 16-bit A");
  // A stage's bytes that its TMA boxes fill: A's box may hold fewer than BM rows (a swapped
  // tile's: the rest feed only output rows past m).
  static_assert(C::A_BOX_ROWS % 8 == 0 && C::A_BOX_ROWS <= C::BM &&
                    (C::SWAP || C::A_BOX_ROWS == C::BM),
                "A's box: BM rows, or a swapped tile's first A_BOX_ROWS");
  static constexpr int kLoadedBytes = kStageBytes - kParts * (C::BM - C::A_BOX_ROWS) * kRowBytes;
  static_assert(!C::TF32 || (!C::A_MN && (!C::B_MN || C::B_REGS) && !C::TMA_STORE),
                "TF32 operands are K-major (B MN-major only from registers); the consumers store");
  static_assert(!C::B_REGS || (C::TF32 && C::B_MN && !C::SPLIT && !C::SWAP && !C::DUAL &&
                               ((C::BM == 128 && C::BN >= 128) || C::BM == 64)),
                "B from registers: TF32, B MN-major, tiles of 128 rows by 128 or 256 columns, "
                "or of 64 rows");
  static_assert(!C::SPLIT || C::TF32, "three products of TF32 parts");
  static_assert(!C::DUAL || (!C::TF32 && !C::TMA_STORE), "a dual GEMM's epilogue combines both");
  static_assert(C::K_SLICES == 1 || (!C::GROUPED && !C::TF32 && C::K_SLICES <= kKSteps),
                "K slices: one K for every tile, no TF32 remainders");
  static constexpr int kEpilogueThreads = 96;  // warps 1-3, when !TMA_STORE
  // setmaxnreg: the block holds 384 x 168 registers from launch (the bound of
  // __launch_bounds__(384, 1)); an increase waits for registers another warpgroup gave back,
  // so warpgroup 0's and the consumers' counts must balance. The epilogue warps need more
  // than a lone producer; the consumers keep only accumulators and addresses.
  static constexpr int kWarpgroup0Registers = kEpilogueWarps ? 120 : 40;
  static constexpr int kConsumerRegisters = kEpilogueWarps ? 192 : 232;
  static_assert(128 * kWarpgroup0Registers + 256 * kConsumerRegisters <= 384 * 168,
                "setmaxnreg asks for too many registers");
  static_assert(C::SMEM >= kSmemBytes, "the host reserves too little shared memory");
  static_assert(kStageBytes % 1024 == 0, "stages must stay swizzle-atom aligned");
};

// Rows by which the A box of a tile in tile row `tm` starts above the tile (K-major 16-bit A),
// so that it reads rows of A rather than rows past the output's `m`: TMA fills a box's rows
// out of bounds slowly (H200, forty-third session: 64 x 4096 x 4096's kernel for 64-row tiles
// at 65 rows 24.0 us, with its last tile's box moved in bounds 21.3, at 128 rows 21.5). A
// multiple of 8, so that the consumers' wgmma descriptors, moved as far into the stage, stay
// on the 128-byte swizzle's 1024-byte atoms (a box may still end up to 7 rows past m); at most
// the rows of B that follow A in the stage, which the moved reads then run into: they land in
// output rows past m, which are never stored.
template <class C>
__device__ __forceinline__ int tessel_gemm_sm90_a_shift(int tm, int m) {
  using L = tessel_gemm_sm90_layout<C>;
  if constexpr (C::SWAP || C::A_MN || C::TF32 || C::GROUPED) {
    return 0;
  } else {
    constexpr int kMost =
        (C::BM - 8 < L::kBBytes / L::kRowBytes ? C::BM - 8 : L::kBBytes / L::kRowBytes) & ~7;
    const int row0 = tm * C::BM, past = row0 + C::BM - m;
    return past <= 0 ? 0 : min(min(row0, kMost), past & ~7);
  }
}

// Tile t of a tiles_m x tiles_n grid: bands of GROUP_M tile rows are walked column by
// column, so the CTAs running at once share A rows and B columns in L2.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_band(int t, int tiles_m, int tiles_n, int& tm,
                                                      int& tn) {
  const int band = t / (C::GROUP_M * tiles_n);
  const int first = band * C::GROUP_M;
  const int rows = min(tiles_m - first, C::GROUP_M);
  t -= band * C::GROUP_M * tiles_n;
  tm = first + t % rows;
  tn = t / rows;
}

// Tile t of the persistent walk (`tiles_m`: tile rows of the output): batch entry by batch
// entry, each a band walk over the parts' concatenated tile columns; GROUPED: C::work.
template <class C>
__device__ __forceinline__ tessel_gemm_sm90_work tessel_gemm_sm90_tile(int t, int tiles_m) {
  if constexpr (C::GROUPED) {
    return C::work(t);
  } else {
    tessel_gemm_sm90_work w;
    w.batch = t / (tiles_m * C::TILES_N);
    tessel_gemm_sm90_band<C>(t - w.batch * (tiles_m * C::TILES_N), tiles_m, C::TILES_N, w.tm, w.tn);
    w.part = C::part(w.tn);
    return w;
  }
}

// Every tile of the walk.
template <class C>
__device__ __forceinline__ int tessel_gemm_sm90_tiles(int tiles_m) {
  if constexpr (C::GROUPED) {
    return C::TILES;
  } else {
    return tiles_m * C::TILES_N * C::BATCH;
  }
}

// K steps of a part's tiles (`k_steps`: every tile's where not GROUPED).
template <class C>
__device__ __forceinline__ int tessel_gemm_sm90_k_steps(int part, int k_steps) {
  if constexpr (C::GROUPED) {
    return C::k_steps(part);
  } else {
    return k_steps;
  }
}

// One segment of a block's walk: a tile and the K steps [k0, k1) of it the block multiplies.
// split(): the tile's K is cut into `slices` slices, this segment's is `slice`, and its piece
// (tessel/gemm_sm90_fixup.cuh) is the `cut`-th of the walk's cut tiles'.
struct tessel_gemm_sm90_segment {
  tessel_gemm_sm90_work w;
  int t, slice, slices, cut, k0, k1;
  __device__ __forceinline__ bool split() const { return slices > 1; }
};

// The slices of each of the walk's `cut` last tiles, which whole tiles would leave to a last
// round over `blocks` blocks: the count that ends the walk soonest (ceil(cut S / blocks)
// rounds of 1 / S of a tile), the fewest on a tie, at most K_SLICES and MAX_PIECES pieces.
// codegen/gemm_k_slices.cc's TailSlices is the host's copy, which sizes the kernel.
template <class C>
__device__ __forceinline__ int tessel_gemm_sm90_tail_slices(int cut, int blocks) {
  int best = 1, best_rounds = 1;
  if (cut == 0) return best;
  for (int s = 2; s <= C::K_SLICES && cut * s <= C::MAX_PIECES; ++s) {
    const int rounds = (cut * s + blocks - 1) / blocks;
    if (rounds * best < best_rounds * s) best = s, best_rounds = rounds;
  }
  return best;
}

// The cut of a walk over `tiles` tiles on this grid.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_plan_cuts(tessel_gemm_sm90_cuts* cuts, int tiles) {
  static_assert(C::K_SLICES <= 8, "first[] holds 8 slices");
  int cut = tiles % gridDim.x;
  const int slices = tessel_gemm_sm90_tail_slices<C>(cut, gridDim.x);
  if (slices == 1) cut = 0;
  cuts->whole = tiles - cut;
  cuts->cut = cut;
  cuts->slices = slices;
  for (int s = 0; s <= slices; ++s) {
    cuts->first[s] = s * tessel_gemm_sm90_layout<C>::kKSteps / slices;
  }
}

// A block's share of the persistent walk, segment by segment. Units go to the blocks in turn,
// unit blockIdx.x first: whole tiles, then with K_SLICES > 1 the tiles a last round would
// leave to a few blocks each cut into even slices of its K steps, dealt slice by slice, so
// that every block takes a share; with CUT_ALL (too few tiles for the SMs: a decode batch's
// projections) every tile in K_SLICES slices. The last block to finish a slice of a tile adds the
// tile's pieces (tessel/gemm_sm90_fixup.cuh).
template <class C>
struct tessel_gemm_sm90_walk {
  int tiles_m, tiles, next;
  const tessel_gemm_sm90_cuts* cuts;  // K_SLICES > 1, else unused
  int k_steps;                        // of every tile not cut (tessel_gemm_sm90's)
  __device__ __forceinline__ tessel_gemm_sm90_walk(int tiles_m_, int tiles_,
                                                   const tessel_gemm_sm90_cuts* cuts_,
                                                   int k_steps_)
      : tiles_m(tiles_m_), tiles(tiles_), next(blockIdx.x), cuts(cuts_), k_steps(k_steps_) {}
  __device__ __forceinline__ int units() const {
    if constexpr (C::K_SLICES == 1) {
      return tiles;
    } else if constexpr (C::CUT_ALL) {
      return tiles * C::K_SLICES;
    } else {
      return tiles + cuts->cut * (cuts->slices - 1);
    }
  }
  // Whether a segment is left after the last one taken.
  __device__ __forceinline__ bool more() const { return next < units(); }
  __device__ __forceinline__ bool take(tessel_gemm_sm90_segment& s) {
    if (next >= units()) return false;
    s.t = next;
    s.slice = s.cut = 0;
    s.slices = 1;
    if constexpr (C::CUT_ALL) {
      s.slices = C::K_SLICES;
      s.slice = next / tiles;
      s.cut = s.t = next - s.slice * tiles;
    } else if constexpr (C::K_SLICES > 1) {
      const int whole = cuts->whole;
      if (next >= whole) {
        s.slices = cuts->slices;
        int unit = next - whole;
        const int cut = cuts->cut;
        while (unit >= cut) unit -= cut, ++s.slice;  // at most 7 times
        s.cut = unit;
        s.t = whole + unit;
      }
    }
    next += gridDim.x;
    s.w = tessel_gemm_sm90_tile<C>(s.t, tiles_m);
    if constexpr (C::CUT_ALL) {
      s.k0 = s.slice * tessel_gemm_sm90_layout<C>::kKSteps / C::K_SLICES;
      s.k1 = (s.slice + 1) * tessel_gemm_sm90_layout<C>::kKSteps / C::K_SLICES;
    } else if (s.split()) {
      s.k0 = cuts->first[s.slice];
      s.k1 = cuts->first[s.slice + 1];
    } else {
      s.k0 = 0;
      s.k1 = tessel_gemm_sm90_k_steps<C>(s.w.part, k_steps);
    }
    return true;
  }
};

// B's BK x BN block of k-step `kt` (all its parts), `offset` bytes into the stage.
template <class C, class Box>
__device__ __forceinline__ void tessel_gemm_sm90_b_boxes(int offset, const tessel_tensor_map& b_map,
                                                         int bb, int tn, int kt, Box& box) {
  using L = tessel_gemm_sm90_layout<C>;
  if constexpr (C::B_MN) {
    // Boxes of a 128-byte row's columns (64 16-bit, 32 floats) by BK k-rows.
    constexpr int kColumns = C::TF32 ? 32 : 64;
#pragma unroll
    for (int i = 0; i < C::BN / kColumns; ++i) {
      box(offset + i * C::BK * L::kRowBytes, b_map, tn * C::BN + i * kColumns, kt * C::BK, bb);
    }
  } else {
#pragma unroll
    for (int part = 0; part < L::kParts; ++part) {
      box(offset + part * L::kBPart, b_map, kt * C::BK, tn * C::BN, bb * L::kParts + part);
    }
  }
}

// Every TMA box of k-step `kt`'s stage of a tile, A's BM x BK block (from `a_shift` rows
// above the tile: tessel_gemm_sm90_a_shift) and B's BK x BN block (and the second B's, DUAL):
// a_box / b_box(offset, map, c0, c1, c2) with `offset` the box's bytes into the stage and (c0
// innermost, c1, c2) its coordinates.
template <class C, class ABox, class BBox>
__device__ __forceinline__ void tessel_gemm_sm90_boxes(const tessel_tensor_map& a_map,
                                                       const tessel_tensor_map& b_map,
                                                       const tessel_tensor_map& b2_map, int batch,
                                                       int tm, int a_shift, int tn, int kt,
                                                       ABox& a_box, BBox& b_box) {
  using L = tessel_gemm_sm90_layout<C>;
  const int ab = C::a_batch(batch), bb = C::b_batch(batch);
  // K-major: one box of rows x 64 k. MN-major: boxes of 64 k-rows x 64 rows/columns.
  if constexpr (C::A_MN) {
#pragma unroll
    for (int i = 0; i < C::BM / 64; ++i) {
      a_box(i * 64 * L::kRowBytes, a_map, tm * C::BM + i * 64, kt * C::BK, ab);
    }
  } else {
#pragma unroll
    for (int part = 0; part < L::kParts; ++part) {
      a_box(part * L::kAPart, a_map, kt * C::BK, tm * C::BM - a_shift, ab * L::kParts + part);
    }
  }
  tessel_gemm_sm90_b_boxes<C>(L::kABytes, b_map, bb, tn, kt, b_box);
  if constexpr (C::DUAL) {
    tessel_gemm_sm90_b_boxes<C>(L::kABytes + L::kBPart, b2_map, bb, tn, kt, b_box);
  }
}

// L2 eviction policies for A's and B's loads (C::KEEP_A: the codegen's GemmTile::keep_a).
struct tessel_gemm_sm90_policies {
  unsigned long long a = 0, b = 0;
};

// Issues one stage's TMA loads.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_load(
    unsigned char* stage, unsigned long long* full, const tessel_tensor_map& a_map,
    const tessel_tensor_map& b_map, const tessel_tensor_map& b2_map, int batch, int tm, int a_shift,
    int tn, int kt, const tessel_gemm_sm90_policies& policies) {
  tessel_mbar_arrive_expect_tx(full, tessel_gemm_sm90_layout<C>::kLoadedBytes);
  auto load = [&](int offset, const tessel_tensor_map& map, int c0, int c1, int c2,
                  unsigned long long policy) {
    if constexpr (C::KEEP_A) {
      tessel_tma_load_3d_hint(stage + offset, &map, full, c0, c1, c2, policy);
    } else {
      tessel_tma_load_3d(stage + offset, &map, full, c0, c1, c2);
    }
  };
  auto a_load = [&](int offset, const tessel_tensor_map& map, int c0, int c1, int c2) {
    load(offset, map, c0, c1, c2, policies.a);
  };
  auto b_load = [&](int offset, const tessel_tensor_map& map, int c0, int c1, int c2) {
    load(offset, map, c0, c1, c2, policies.b);
  };
  tessel_gemm_sm90_boxes<C>(a_map, b_map, b2_map, batch, tm, a_shift, tn, kt, a_load, b_load);
}

// `a_maps(part)`, `b_maps(part)`: the part's A and B maps; `m` the output's rows.
template <class C, class AMaps, class BMaps>
__device__ __forceinline__ void tessel_gemm_sm90_producer(
    unsigned char* ring, unsigned long long* full, unsigned long long* empty, AMaps& a_maps,
    BMaps& b_maps, int m, int tiles_m, int tiles, const tessel_gemm_sm90_cuts* cuts,
    int k_steps) {
  using L = tessel_gemm_sm90_layout<C>;
  int stage = 0;
  unsigned phase = 0;
  tessel_gemm_sm90_policies policies;
  if constexpr (C::KEEP_A) {
    policies.a = tessel_l2_policy_evict_last();
    policies.b = tessel_l2_policy_evict_first();
  }
  tessel_gemm_sm90_walk<C> walk(tiles_m, tiles, cuts, k_steps);
  for (tessel_gemm_sm90_segment s; walk.take(s);) {
    const tessel_gemm_sm90_work& w = s.w;
    const tessel_tensor_map& a_map = *a_maps(w.part);
    const tessel_tensor_map& b_map = *b_maps(w.part);
    const tessel_tensor_map& b2_map = *b_maps(C::DUAL ? 1 : w.part);
    const int a_shift = tessel_gemm_sm90_a_shift<C>(w.tm, m);
    for (int kt = s.k0; kt < s.k1; ++kt) {
      tessel_mbar_wait(&empty[stage], phase ^ 1);  // a fresh barrier passes parity 1
      tessel_gemm_sm90_load<C>(ring + stage * L::kStageBytes, &full[stage], a_map, b_map, b2_map,
                               w.batch, w.tm, a_shift, w.tn, kt, policies);
      if (++stage == C::STAGES) stage = 0, phase ^= 1;
    }
  }
}
