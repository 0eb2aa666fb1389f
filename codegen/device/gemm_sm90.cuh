// tessel device library: the Hopper GEMM mainloop (sm_90a), handed to NVRTC as the named
// header "tessel/gemm_sm90.cuh". The code generator writes a configuration C, the epilogue
// and the kernel that instantiates tessel_gemm_sm90<C>.
//
// One CTA per SM walks output tiles (persistent grid, L2-grouped order), with three roles:
// - the producer, one thread of warp 0: TMA loads into a ring of C::STAGES shared-memory
//   stages guarded by full/empty mbarriers;
// - the consumers, warpgroups 1 and 2 (only 1 when BM = 64, for skinny problems): each
//   multiplies its 64 rows of the BM x BN tile with
//   wgmma straight from the swizzled stages, releases each stage once the wgmma reading it has
//   retired, and rounds its accumulators to the matmul's 16-bit type into its staging tile;
// - the output. With TMA_STORE (the kernel's one output is the matmul itself) the consumers
//   store their staging tiles by TMA. Otherwise warps 1-3 are the epilogue warps: they read
//   each staging tile and run the generated epilogue (bias, activation, residual, any
//   outputs) while the consumers already multiply the next tile, so the epilogue's
//   arithmetic and loads overlap the tensor cores' work. The consumers run the block's
//   last tile themselves.
//
// - TF32 (f32 operands read as TF32, both K-major: wgmma's only layout for 32-bit operands;
//   the generator stages MN-major ones so): no staging tile; the consumers run the epilogue
//   on their accumulators, as the portable kernel does. With SPLIT (three TF32 products),
//   each operand arrives as two matrices, its TF32 part and remainder (consecutive along the
//   map's third axis), a stage holds both, and each k8 step issues three wgmmas: the parts'
//   product into `part`, the two remainder products into `rest`. The tensor cores' adds
//   truncate: summed over a long K in one accumulator, the parts' product loses about an
//   ulp of the sum per k8 step (measured: 70x f32's error over 4096 same-sign terms), so
//   each stage's `part` is added to the accumulators in f32 (round to nearest). `rest`,
//   2^-11 of the sum, keeps one accumulator; it joins at the end where the sum is finite
//   (so that infinities come out as in f32).
//
// The output's row count m is an argument (a literal the compiler folds, or the kernel's
// rows argument where rows are dynamic).
// Sibling GEMMs (the same A, each its own B and output: q, k and v projections) run as parts
// of one walk over their concatenated tile columns, so that a band of tile rows reads its A
// rows once for every part; the epilogue and the TMA store take the tile's part.
//
// GROUPED (independent GEMMs, each its own A, B, M, N and K: the experts of a mixture of
// experts): one persistent walk over every problem's tiles, C::work(t) giving tile t's
// problem (part) and coordinates, C::k_steps(part) its K steps; a_maps(part), b_maps(part)
// and out_maps(part) its maps.
//
// B_REGS (TF32 with B as stored, [k, n]: MN-major, which wgmma reads from shared memory only
// for 16-bit types): the product runs transposed, as C^T = B^T A^T, so that no copy of B is
// transposed first. Each consumer (one per 64 rows of the tile) loads its share of a stage's
// B columns into registers as wgmma's A (tessel_gemm_sm90_b_frags), and the tile's BM rows of
// A, K-major, are wgmma's B; its accumulators hold blocks of 64 columns x BM rows (the
// epilogue's mapping says how).
//
// SWAP (few rows: M <= 32, or 65-128 over many columns, the case of decoding a handful of
// tokens; any form above): the operands trade places in the tensor cores, computing the
// tile's transpose B^T A^T. A tile is BM = 16, 32 or 128 rows (wgmma's N) by 64 of B's
// columns per consumer (wgmma's M), so that wgmma multiplies few padding rows, a stage is
// mostly B, the stream that costs, and B is read once; each consumer's accumulators hold its
// 64 columns x BM rows, transposed into a BM x 64 staging tile. A's box holds A_BOX_ROWS of
// the BM rows (the output's, rounded up to 8, for fixed rows): TMA fills a box's rows past m
// slowly, and the stage's rows left unloaded feed only output rows past m.
//
// DUAL (two GEMMs of the same A and output shape whose results meet elementwise, as SwiGLU's
// silu(x wg) * (x wu)): each stage holds A and both B blocks (b_maps(0), b_maps(1)), each
// consumer keeps both accumulators (`rest` holds the second), stages both into its staging
// tile, and the epilogue gets both values of each output position, so that neither product
// is written to memory.
//
// K_SLICES > 1 (codegen/gemm_k_slices.cc: tiles for at most half the SMs, or a second round
// of few tiles, and a long K): the walk cuts those tiles' K steps into
// even slices that the blocks take in turn (gemm_sm90_producer.cuh), and the last block to
// finish a slice of a tile adds the tile's pieces through the workspace and runs its epilogue
// (gemm_sm90_fixup.cuh).
//
// C provides: TILES_N (tile columns, summed over the parts), `static __device__ int
// part(int& tn)` (the part of tile column tn, which it makes local to the part), GROUPED (and
// then TILES, work and k_steps, above), K, BATCH (output batch entries), BM (128/64), BN
// (256/128/64; SWAP: BM 16/32/128, BN 128/64), A_BOX_ROWS (A's box rows), BK (64; 32 with
// TF32: 128-byte rows either way), STAGES, GROUP_M, SWAP, A_MN / B_MN (operand stored MN-major,
// i.e. read transposed), F16 (f16 operands and matmul, else bf16), TF32, SPLIT, B_REGS, DUAL,
// TMA_STORE, K_SLICES (the most slices of a tile), CUT_ALL (every tile in K_SLICES slices),
// MAX_PIECES and FIXUP_BYTES (the pieces the workspace holds, its bytes), STRIDED (the epilogue's
// lanes one column apart), KEEP_A (A's TMA loads evict_last in L2, B's evict_first), SMEM
// (dynamic shared bytes the host reserves), and `static __device__
// int a_batch(int)`, `b_batch(int)`: each operand's batch coordinate for an output batch entry
// (broadcast batches map many entries to one).
#pragma once
#include "tessel/gemm_sm90_b_regs.cuh"
#include "tessel/gemm_sm90_fixup.cuh"

// The origin of consumer c's block of tile w: its 64 rows (SWAP: its 64 columns; B_REGS: its
// share of the BN columns).
template <class C>
__device__ __forceinline__ int tessel_gemm_sm90_row0(const tessel_gemm_sm90_work& w, int c) {
  return w.tm * C::BM + (C::SWAP || C::B_REGS ? 0 : 64 * c);
}
template <class C>
__device__ __forceinline__ int tessel_gemm_sm90_col0(const tessel_gemm_sm90_work& w, int c) {
  if constexpr (C::SWAP) {
    return w.tn * C::BN + 64 * c;
  } else if constexpr (C::B_REGS) {
    return w.tn * C::BN + tessel_gemm_sm90_b_frags<C>::kColumns * c;
  } else {
    return w.tn * C::BN;
  }
}

// One stage's wgmmas for consumer `c` (rows 64c..64c+63 of the tile, `a_shift` rows into the
// stage's A: tessel_gemm_sm90_a_shift): four steps of k16 (k8 for TF32), 32 bytes of K each.
// K-major operands advance 32 bytes per step inside the swizzled row; MN-major ones advance 16
// k-rows (2048 bytes). MN-major blocks of 64 columns lie 64 * 128 bytes apart. `acc` starts
// afresh where `first`; with SPLIT it receives only the parts' product of this stage, and
// `rest` (from `first_rest`) the remainder products; with DUAL, `rest` the product with the
// second B (from `first`): `rest` follows `acc` in one array and the stage holds the second B
// right after the first, so that one wgmma of twice the N computes both (a 128 x 256 tile's
// instructions, not twice a 128 x 128 one's).
// SWAP: consumer c's 64 columns of B (and of the second B, DUAL) are wgmma's A and the
// tile's BM rows of A its B.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_mma(
    float (&acc)[tessel_gemm_sm90_layout<C>::kAccs],
    float (&rest)[tessel_gemm_sm90_layout<C>::kAccs], const unsigned char* stage, int c,
    int a_shift, bool first, bool first_rest) {
  using L = tessel_gemm_sm90_layout<C>;
  constexpr unsigned kStep = 16 * 128, kBlock = 64 * L::kRowBytes;
  if constexpr (C::SWAP) {
    const unsigned rows = tessel_smem(stage), cols = rows + L::kABytes + c * kBlock;
#pragma unroll
    for (int kk = 0; kk < L::kRowBytes / 32; ++kk) {
      const unsigned long long b =
          tessel_wgmma_desc(cols + kk * (C::B_MN ? kStep : 32), C::B_MN ? kBlock : 16, 1024);
      const unsigned long long a = tessel_wgmma_desc(rows + kk * 32, 16, 1024);
      tessel_wgmma<C::F16, C::B_MN ? 1 : 0, 0>(acc, b, a, (first && kk == 0) ? 0 : 1);
      if constexpr (C::DUAL) {
        const unsigned long long b2 = tessel_wgmma_desc(
            cols + L::kBPart + kk * (C::B_MN ? kStep : 32), C::B_MN ? kBlock : 16, 1024);
        tessel_wgmma<C::F16, C::B_MN ? 1 : 0, 0>(rest, b2, a, (first && kk == 0) ? 0 : 1);
      }
    }
    return;
  }
  const unsigned a0 = tessel_smem(stage) + (c * 64 + a_shift) * L::kRowBytes;
  const unsigned b0 = tessel_smem(stage) + L::kABytes;
#pragma unroll
  for (int kk = 0; kk < L::kRowBytes / 32; ++kk) {
    const unsigned long long a =
        tessel_wgmma_desc(a0 + kk * (C::A_MN ? kStep : 32), C::A_MN ? kBlock : 16, 1024);
    const unsigned long long b =
        tessel_wgmma_desc(b0 + kk * (C::B_MN ? kStep : 32), C::B_MN ? kBlock : 16, 1024);
    const int accumulate = (first && kk == 0) ? 0 : 1;
    if constexpr (C::SPLIT) {  // remainder x part and part x remainder apart, then the parts
      const unsigned long long a_rest = tessel_wgmma_desc(a0 + L::kAPart + kk * 32, 16, 1024);
      const unsigned long long b_rest = tessel_wgmma_desc(b0 + L::kBPart + kk * 32, 16, 1024);
      tessel_wgmma_tf32(rest, a_rest, b, (first_rest && kk == 0) ? 0 : 1);
      tessel_wgmma_tf32(rest, a, b_rest, 1);
      tessel_wgmma_tf32(acc, a, b, accumulate);
    } else if constexpr (C::TF32) {
      tessel_wgmma_tf32(acc, a, b, accumulate);
    } else if constexpr (C::DUAL) {
      // Both B's as one of 2 BN columns: K-major, their rows run on; MN-major, their blocks
      // of 64 columns lie kBlock apart throughout.
      tessel_wgmma<C::F16, C::A_MN ? 1 : 0, C::B_MN ? 1 : 0>(*(float(*)[2 * L::kAccs]) acc, a, b,
                                                             accumulate);
    } else {
      tessel_wgmma<C::F16, C::A_MN ? 1 : 0, C::B_MN ? 1 : 0>(acc, a, b, accumulate);
    }
  }
}

// One tile's mainloop for consumer c; `stage` and `phase` carry over to the next tile.
// With SPLIT, `part` takes each stage's parts' product, added to `acc` once it has retired.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_mainloop(
    float (&acc)[tessel_gemm_sm90_layout<C>::kAccs],
    float (&part)[tessel_gemm_sm90_layout<C>::kAccs],
    float (&rest)[tessel_gemm_sm90_layout<C>::kAccs], unsigned char* ring, unsigned long long* full,
    unsigned long long* empty, int c, int a_shift, int k_steps, int& stage, unsigned& phase) {
  using L = tessel_gemm_sm90_layout<C>;
  const bool signals = threadIdx.x % 128 == 0;
  int previous = 0;
  for (int kt = 0; kt < k_steps; ++kt) {
    tessel_mbar_wait(&full[stage], phase);
    tessel_wgmma_fence();
    if constexpr (C::SPLIT) {
      tessel_gemm_sm90_mma<C>(part, rest, ring + stage * L::kStageBytes, c, a_shift, true, kt == 0);
      tessel_wgmma_commit();
      tessel_wgmma_wait<0>();
      if (signals) tessel_mbar_arrive(&empty[stage]);
#pragma unroll
      for (int i = 0; i < L::kAccs; ++i) acc[i] = kt == 0 ? part[i] : acc[i] + part[i];
      if (++stage == C::STAGES) stage = 0, phase ^= 1;
    } else {
      tessel_gemm_sm90_mma<C>(acc, rest, ring + stage * L::kStageBytes, c, a_shift, kt == 0, false);
      tessel_wgmma_commit();
      tessel_gemm_sm90_next_stage<C>(empty, kt, previous, stage, phase);
    }
  }
  if constexpr (!C::SPLIT) tessel_gemm_sm90_last_stage(empty, previous);
}

// `epilogue(mm, part, batch, row, col)` runs in the epilogue warps for every run of BN / 8
// outputs of a tile row of part `part` (columns local to the part): the matmul's 16-bit
// values at (row, col + 64 (k / 8) + k % 8) (STRIDED: (row, col + 8 k)) in pairs, lane k in
// the low (even k) or high half of mm[k / 2]. `a_maps(part)` and `b_maps(part)` give each
// part's A and B maps. With TMA_STORE, `out_maps(part)` addresses each part's output and the
// epilogue is not called.
// With DUAL, `epilogue(mm, mm2, part, batch, row, col)`: mm2 holds the second product's values.
// With TF32, `epilogue(acc, part, batch, row0, col0)` runs in each consumer for its 64 x BN
// block at (row0, col0): thread t's acc[i] at row row0 + 16 (t / 32) + (t % 32) / 4 +
// 8 ((i >> 1) & 1), column col0 + 8 (i >> 2) + 2 (t % 4) + (i & 1), t = threadIdx.x % 128.
// B_REGS: the block is BM rows x the consumer's share of BN columns, its transpose in blocks
// of 64 columns: acc[BM / 2 j + e] at row row0 + 8 (e >> 2) + 2 (t % 4) + (e & 1), column
// col0 + 64 j + 16 (t / 32) + (t % 32) / 4 + 8 ((e >> 1) & 1).
// `ws`: the workspace of K slices' pieces (tessel/gemm_sm90_fixup.cuh), else unused.
// `k_steps`: the K steps of every tile, where K is known at run time only (no K slices; C::K
// is then the most it may be); GROUPED: unused (C::k_steps).
template <class C, class AMaps, class BMaps, class OutMaps, class Epilogue>
__device__ __forceinline__ void tessel_gemm_sm90(
    AMaps a_maps, BMaps b_maps, OutMaps out_maps, Epilogue epilogue, int m,
    unsigned char* ws = nullptr, int k_steps = tessel_gemm_sm90_layout<C>::kKSteps) {
  using L = tessel_gemm_sm90_layout<C>;
  const int tiles_m = (m + C::BM - 1) / C::BM;  // (GROUPED: unused)
  const int tiles = tessel_gemm_sm90_tiles<C>(tiles_m);
  extern __shared__ unsigned char tessel_smem_raw[];
  unsigned char* ring = (unsigned char*)(((unsigned long long)tessel_smem_raw + 1023) & ~1023ull);
  unsigned char* staging_base = ring + C::STAGES * L::kStageBytes;
  unsigned long long* full = (unsigned long long*)(staging_base + L::kConsumers * L::kStagingBytes);
  unsigned long long* empty = full + C::STAGES;
  unsigned long long* staged = empty + C::STAGES;  // consumer c's staging tile is written
  unsigned long long* drained = staged + 2;        // ... and the epilogue warps have read it
  unsigned* verdicts = (unsigned*)(drained + 2);   // K slices: consumer c finishes the tile
  tessel_gemm_sm90_cuts* cuts = (tessel_gemm_sm90_cuts*)(verdicts + 2);  // ... and the walk's cut
  if (threadIdx.x == 0) {
    if constexpr (C::K_SLICES > 1 && !C::CUT_ALL) tessel_gemm_sm90_plan_cuts<C>(cuts, tiles);
#pragma unroll
    for (int s = 0; s < C::STAGES; ++s) {
      tessel_mbar_init(&full[s], 1);               // the producer's arrive plus the TMA bytes
      tessel_mbar_init(&empty[s], L::kConsumers);  // one arrive per consumer warpgroup
    }
    for (int c = 0; c < 2; ++c) {
      tessel_mbar_init(&staged[c], 128);
      tessel_mbar_init(&drained[c], L::kEpilogueThreads);
    }
    tessel_fence_mbar_init();
    // No L2 prefetch of the first stages here, before the wait (aa5a928 had one): it made
    // q/k/v at M = 64 23% slower alone and 9% in a loop (H200, forty-first session).
  }
  __syncthreads();
  // Every block is resident (a persistent grid). Where the walk has more units than blocks
  // (the grid holds every SM), the next kernel's blocks may take the SMs of blocks that end
  // early and run up to their own wait. Where it has no more (each block one unit, SMs left
  // idle), the next kernel starts as this grid's blocks end: its blocks waiting on the idle SMs
  // made this one slower (H200, forty-fifth session: q/k/v at M = 64, 96 blocks, 17.8 us
  // with them, 13.4 without, 15.2 launched with no overlap; SwiGLU at M = 64, 172 tiles on
  // 132 blocks, 50.2 us with the early start, 50.8 without). Where it has many more (rounds of
  // tiles beyond a second), the early start cost 1-2%: SwiGLU's dual GEMM at M = 1024 (5
  // rounds) 0.2735-0.2747 ms with it, 0.2664-0.2728 without; at M = 8192 2.149-2.155 against
  // 2.117; q/k/v at 8192 0.567-0.575 against 0.564 (H200, forty-eighth session).
  const int units = tessel_gemm_sm90_walk<C>(tiles_m, tiles, cuts, k_steps).units();
  if (units > (int)gridDim.x && units <= 2 * (int)gridDim.x) tessel_launch_dependents();
  // No global memory before this: the kernel before may still be writing or reading it.
  tessel_grid_dependency_wait();
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    tessel_setmaxnreg_dec<L::kWarpgroup0Registers>();
    if (threadIdx.x == 0) {
      tessel_gemm_sm90_producer<C>(ring, full, empty, a_maps, b_maps, m, tiles_m, tiles, cuts,
                                   k_steps);
    } else if constexpr (!L::kEpilogueWarps) {
      // No epilogue warps: the producer's warpgroup has nothing else to do.
    } else if (threadIdx.x >= 32) {
      // The block's last segment and split tiles are the consumers' own (see below).
      tessel_gemm_sm90_walk<C> walk(tiles_m, tiles, cuts, k_steps);
      int n = 0;  // tiles handed over
      for (tessel_gemm_sm90_segment s; walk.take(s) && walk.more();) {
        if (s.split()) continue;
        for (int c = 0; c < L::kConsumers; ++c) {
          tessel_mbar_wait(&staged[c], n & 1);
          tessel_gemm_sm90_epilogue<C, L::kEpilogueThreads>(
              staging_base + c * L::kStagingBytes, threadIdx.x - 32, s.w,
              tessel_gemm_sm90_row0<C>(s.w, c), tessel_gemm_sm90_col0<C>(s.w, c), epilogue);
          tessel_mbar_arrive(&drained[c]);
        }
        ++n;
      }
    }
    return;
  }
  tessel_setmaxnreg_inc<L::kConsumerRegisters>();
  const int c = warpgroup - 1;
  if (c >= L::kConsumers) return;
  const bool signals = threadIdx.x % 128 == 0;
  unsigned char* staging = staging_base + c * L::kStagingBytes;
  int stage = 0;
  unsigned phase = 0;
  // part, rest: SPLIT's parts' product of a stage and remainder products; DUAL: rest is the
  // second product's, after acc in one array (tessel_gemm_sm90_mma); else unused.
  float sums[(C::DUAL ? 2 : 1) * L::kAccs], part[L::kAccs], own_rest[L::kAccs];
  float(&acc)[L::kAccs] = *(float(*)[L::kAccs])sums;
  float(&rest)[L::kAccs] = C::DUAL ? *(float(*)[L::kAccs])(sums + L::kAccs) : own_rest;
  tessel_gemm_sm90_walk<C> walk(tiles_m, tiles, cuts, k_steps);
  int n = 0;  // tiles handed to the epilogue warps
  for (tessel_gemm_sm90_segment s; walk.take(s);) {
    const tessel_gemm_sm90_work& w = s.w;
    const int row0 = tessel_gemm_sm90_row0<C>(w, c), col0 = tessel_gemm_sm90_col0<C>(w, c);
    if constexpr (C::B_REGS) {
      tessel_gemm_sm90_mainloop_b_regs<C>(acc, ring, full, empty, c, s.k1 - s.k0, stage, phase);
    } else {
      tessel_gemm_sm90_mainloop<C>(acc, part, rest, ring, full, empty, c,
                                   tessel_gemm_sm90_a_shift<C>(w.tm, m), s.k1 - s.k0, stage, phase);
    }
    if constexpr (C::SPLIT) {
      // An infinite part makes the remainder products NaN (inf x 0) where f32 gives the
      // infinity; the parts' product then is that infinity (or the NaN f32 gives too).
#pragma unroll
      for (int i = 0; i < L::kAccs; ++i) acc[i] = isfinite(acc[i]) ? acc[i] + rest[i] : acc[i];
    }
    if constexpr (C::K_SLICES > 1) {
      if (s.split() && !tessel_gemm_sm90_fix_up<C>(acc, rest, ws, s, c, &verdicts[c])) {
        continue;  // another block adds this tile's pieces
      }
    }
    if constexpr (C::TF32) {
      epilogue(acc, w.part, w.batch, row0, col0);
    } else if constexpr (C::TMA_STORE) {
      if (signals) tessel_bulk_wait_read<0>();  // the previous tile's store has read staging
      tessel_named_barrier(1 + c, 128);
      tessel_gemm_sm90_stage<C>(acc, staging);
      tessel_fence_proxy_async();  // every writer, before the TMA store reads staging
      tessel_named_barrier(1 + c, 128);
      if (signals) {
        const tessel_tensor_map* out_map = out_maps(w.part);
#pragma unroll
        for (int i = 0; i < L::Staging::kBoxes; ++i) {
          tessel_tma_store_3d(out_map, staging + i * 8192, col0 + i * 64, row0, w.batch);
        }
        tessel_bulk_commit();
      }
    } else {
      tessel_mbar_wait(&drained[c], (n & 1) ^ 1);  // the epilogue warps read the last tile
      tessel_gemm_sm90_stage<C>(acc, staging);
      if constexpr (C::DUAL) tessel_gemm_sm90_stage<C>(rest, staging + L::Staging::kTileBytes);
      if (walk.more() && !s.split()) {
        tessel_mbar_arrive(&staged[c]);
        ++n;
      } else {
        // Nothing left to multiply: rather than leave the last epilogue to three warps while
        // the tensor cores idle, each consumer runs its own half with all its threads (as it
        // does a split tile's, which the epilogue warps cannot know it finishes).
        tessel_named_barrier(1 + c, 128);
        tessel_gemm_sm90_epilogue<C, 128>(staging, threadIdx.x % 128, w, row0, col0, epilogue);
        tessel_named_barrier(1 + c, 128);  // read, before the next tile's staging
      }
    }
  }
  if (C::TMA_STORE && signals) tessel_bulk_wait_read<0>();  // staging outlives its stores
}
