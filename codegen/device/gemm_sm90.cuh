// tessel device library: the Hopper GEMM mainloop (sm_90a), handed to NVRTC as the named
// header "tessel/gemm_sm90.cuh". The code generator writes a configuration C, the epilogue
// and the kernel that instantiates tessel_gemm_sm90<C>.
//
// One CTA per SM walks output tiles (persistent grid, L2-grouped order). Warpgroup 0 is the
// producer: one thread issues TMA loads into a ring of C::STAGES shared-memory stages guarded
// by full/empty mbarriers. Warpgroups 1 and 2 are consumers: each multiplies its 64 rows of
// the BM x BN tile with wgmma straight from the swizzled stages, releases each stage once the
// wgmma reading it has retired, and then runs the epilogue on its accumulators in registers.
//
// C provides: M, N, K, BATCH (output batch entries), BM (128), BN (256/128/64), BK (64),
// STAGES, GROUP_M, A_MN / B_MN (operand stored MN-major, i.e. read transposed), F16
// (f16 operands, else bf16), TMA_STORE (the epilogue writes one 16-bit output into a
// shared staging tile that TMA stores while the next tile's mainloop runs), SMEM (dynamic
// shared bytes the host reserves), and
// `static __device__ int a_batch(int)`, `b_batch(int)`: each operand's batch coordinate for
// an output batch entry (broadcast batches map many entries to one).
#pragma once
#include "tessel/ptx.cuh"

template <class C>
struct tessel_gemm_sm90_layout {
  static constexpr int kABytes = C::BM * C::BK * 2;  // one stage of A
  static constexpr int kBBytes = C::BN * C::BK * 2;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kStagingBytes = 64 * C::BN * 2;  // per consumer, when TMA_STORE
  // 1024 bytes of slack to align the ring to the 128-byte swizzle's 1024-byte atom.
  static constexpr int kSmemBytes = 1024 + C::STAGES * kStageBytes +
                                    (C::TMA_STORE ? 2 * kStagingBytes : 0) + 2 * C::STAGES * 8;
  static constexpr int kTilesM = (C::M + C::BM - 1) / C::BM;
  static constexpr int kTilesN = (C::N + C::BN - 1) / C::BN;
  static constexpr int kTiles = kTilesM * kTilesN * C::BATCH;
  static constexpr int kKSteps = (C::K + C::BK - 1) / C::BK;
  static_assert(C::BM == 128 && C::BK == 64, "two consumer warpgroups of m64, 128-byte rows");
  // setmaxnreg below: the block holds 384 x 168 registers from launch (the bound of
  // __launch_bounds__(384, 1)); an increase waits for registers another warpgroup gave back,
  // so 40 for the producer and 232 for the consumers must balance.
  static_assert(128 * 40 + 256 * 232 <= 384 * 168, "setmaxnreg asks for too many registers");
  static_assert(C::SMEM >= kSmemBytes, "the host reserves too little shared memory");
  static_assert(kStageBytes % 1024 == 0, "stages must stay swizzle-atom aligned");
};

// Tile t of the persistent walk: bands of GROUP_M tile rows are walked column by column, so
// the CTAs running at once share A rows and B columns in L2.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_tile(int t, int& batch, int& tm, int& tn) {
  using L = tessel_gemm_sm90_layout<C>;
  batch = t / (L::kTilesM * L::kTilesN);
  t -= batch * (L::kTilesM * L::kTilesN);
  const int band = t / (C::GROUP_M * L::kTilesN);
  const int first = band * C::GROUP_M;
  const int rows = min(L::kTilesM - first, C::GROUP_M);
  t -= band * C::GROUP_M * L::kTilesN;
  tm = first + t % rows;
  tn = t / rows;
}

// Issues one stage's TMA loads: A's BM x BK block and B's BK x BN block of k-step `kt`.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_load(unsigned char* stage,
                                                      unsigned long long* full,
                                                      const tessel_tensor_map& a_map,
                                                      const tessel_tensor_map& b_map, int batch,
                                                      int tm, int tn, int kt) {
  using L = tessel_gemm_sm90_layout<C>;
  tessel_mbar_arrive_expect_tx(full, L::kStageBytes);
  const int ab = C::a_batch(batch), bb = C::b_batch(batch);
  // K-major: one box of rows x 64 k. MN-major: boxes of 64 k-rows x 64 rows/columns.
  if constexpr (C::A_MN) {
#pragma unroll
    for (int i = 0; i < C::BM / 64; ++i) {
      tessel_tma_load_3d(stage + i * 64 * C::BK * 2, &a_map, full, tm * C::BM + i * 64,
                         kt * C::BK, ab);
    }
  } else {
    tessel_tma_load_3d(stage, &a_map, full, kt * C::BK, tm * C::BM, ab);
  }
  unsigned char* b = stage + L::kABytes;
  if constexpr (C::B_MN) {
#pragma unroll
    for (int i = 0; i < C::BN / 64; ++i) {
      tessel_tma_load_3d(b + i * 64 * C::BK * 2, &b_map, full, tn * C::BN + i * 64, kt * C::BK,
                         bb);
    }
  } else {
    tessel_tma_load_3d(b, &b_map, full, kt * C::BK, tn * C::BN, bb);
  }
}

// One stage's wgmmas for consumer `c` (rows 64c..64c+63 of the tile): BK / 16 steps of k16.
// K-major operands advance 32 bytes per step inside the swizzled row; MN-major ones advance
// 16 k-rows (2048 bytes). MN-major blocks of 64 columns lie 64 * BK * 2 bytes apart.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_mma(float (&acc)[C::BN / 2],
                                                     const unsigned char* stage, int c,
                                                     bool first) {
  using L = tessel_gemm_sm90_layout<C>;
  const unsigned a0 = tessel_smem(stage) + c * 64 * C::BK * 2;
  const unsigned b0 = tessel_smem(stage) + L::kABytes;
  constexpr unsigned kStep = 16 * 128, kBlock = 64 * C::BK * 2;
#pragma unroll
  for (int kk = 0; kk < C::BK / 16; ++kk) {
    const unsigned long long a = tessel_wgmma_desc(a0 + kk * (C::A_MN ? kStep : 32),
                                                   C::A_MN ? kBlock : 16, 1024);
    const unsigned long long b = tessel_wgmma_desc(b0 + kk * (C::B_MN ? kStep : 32),
                                                   C::B_MN ? kBlock : 16, 1024);
    tessel_wgmma<C::F16, C::A_MN ? 1 : 0, C::B_MN ? 1 : 0>(acc, a, b, (first && kk == 0) ? 0 : 1);
  }
}

// Puts two adjacent 16-bit outputs (row, col), (row, col + 1) of a consumer's 64 x BN block
// into its staging tile: BN / 64 boxes of 64 x 64, 128-byte swizzled as the TMA store expects
// (16-byte chunk index XOR row % 8), which also spreads a warp's writes over all banks.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_stage(unsigned char* staging, int row, int col,
                                                       unsigned short first,
                                                       unsigned short second) {
  const int chunk = ((col % 64) / 8) ^ (row % 8);
  unsigned* p = (unsigned*)(staging + (col / 64) * 8192 + row * 128 + chunk * 16 + (col % 8) * 2);
  *p = (unsigned)first | ((unsigned)second << 16);
}

// `epilogue(acc, batch, row0, col0, staging)` runs in each consumer thread once its 64 x BN block of
// the tile (rows row0.., columns col0..) is complete. Thread t of the warpgroup holds
// acc[i] at row row0 + 16 (t / 32) + (t % 32) / 4 + 8 ((i >> 1) & 1) and column
// col0 + 8 (i >> 2) + 2 (t % 4) + (i & 1). With TMA_STORE it fills `staging` (see
// tessel_gemm_sm90_stage) and the block is stored through `out_map` afterwards.
template <class C, class Epilogue>
__device__ __forceinline__ void tessel_gemm_sm90(const tessel_tensor_map& a_map,
                                                 const tessel_tensor_map& b_map,
                                                 const tessel_tensor_map* out_map,
                                                 Epilogue epilogue) {
  using L = tessel_gemm_sm90_layout<C>;
  extern __shared__ unsigned char tessel_smem_raw[];
  unsigned char* ring = (unsigned char*)(((unsigned long long)tessel_smem_raw + 1023) & ~1023ull);
  unsigned char* staging_base = ring + C::STAGES * L::kStageBytes;
  unsigned long long* full =
      (unsigned long long*)(staging_base + (C::TMA_STORE ? 2 * L::kStagingBytes : 0));
  unsigned long long* empty = full + C::STAGES;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < C::STAGES; ++s) {
      tessel_mbar_init(&full[s], 1);   // the producer's arrive plus the TMA bytes
      tessel_mbar_init(&empty[s], 2);  // one arrive per consumer warpgroup
    }
    tessel_fence_mbar_init();
  }
  __syncthreads();
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    tessel_setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      int stage = 0;
      unsigned phase = 0;
      for (int t = blockIdx.x; t < L::kTiles; t += gridDim.x) {
        int batch, tm, tn;
        tessel_gemm_sm90_tile<C>(t, batch, tm, tn);
        for (int kt = 0; kt < L::kKSteps; ++kt) {
          tessel_mbar_wait(&empty[stage], phase ^ 1);  // a fresh barrier passes parity 1
          tessel_gemm_sm90_load<C>(ring + stage * L::kStageBytes, &full[stage], a_map, b_map,
                                   batch, tm, tn, kt);
          if (++stage == C::STAGES) stage = 0, phase ^= 1;
        }
      }
    }
  } else {
    tessel_setmaxnreg_inc<232>();
    const int c = warpgroup - 1;
    const bool signals = threadIdx.x % 128 == 0;
    unsigned char* staging = C::TMA_STORE ? staging_base + c * L::kStagingBytes : nullptr;
    int stage = 0;
    unsigned phase = 0;
    float acc[C::BN / 2];
    for (int t = blockIdx.x; t < L::kTiles; t += gridDim.x) {
      int batch, tm, tn;
      tessel_gemm_sm90_tile<C>(t, batch, tm, tn);
      int previous = 0;
      for (int kt = 0; kt < L::kKSteps; ++kt) {
        tessel_mbar_wait(&full[stage], phase);
        tessel_wgmma_fence();
        tessel_gemm_sm90_mma<C>(acc, ring + stage * L::kStageBytes, c, kt == 0);
        tessel_wgmma_commit();
        // The previous stage's wgmmas have retired once at most one group is in flight.
        if (kt > 0) {
          tessel_wgmma_wait<1>();
          if (signals) tessel_mbar_arrive(&empty[previous]);
        }
        previous = stage;
        if (++stage == C::STAGES) stage = 0, phase ^= 1;
      }
      tessel_wgmma_wait<0>();
      if (signals) tessel_mbar_arrive(&empty[previous]);
      const int row0 = tm * C::BM + c * 64, col0 = tn * C::BN;
      if constexpr (C::TMA_STORE) {
        if (signals) tessel_bulk_wait_read<0>();  // the previous tile's store has read staging
        tessel_named_barrier(1 + c, 128);
      }
      epilogue(acc, batch, row0, col0, staging);
      if constexpr (C::TMA_STORE) {
        tessel_fence_proxy_async();  // every writer, before the TMA store reads staging
        tessel_named_barrier(1 + c, 128);
        if (signals) {
#pragma unroll
          for (int i = 0; i < C::BN / 64; ++i) {
            tessel_tma_store_3d(out_map, staging + i * 8192, col0 + i * 64, row0, batch);
          }
          tessel_bulk_commit();
        }
      }
    }
    if (C::TMA_STORE && signals) tessel_bulk_wait_read<0>();  // staging outlives its stores
  }
}
