// tessel device library: the Hopper GEMM's mainloop for TF32 with B read into registers
// (gemm_sm90.cuh's B_REGS), handed to NVRTC as "tessel/gemm_sm90_b_regs.cuh", and the step
// that retires a stage, which both mainloops share. wgmma reads 32-bit operands from shared
// memory only K-major; B as stored ([k, n]) is MN-major, so the product runs transposed,
// C^T = B^T A^T: B's columns are wgmma's A, from registers, and the tile's K-major rows of A
// its B.
#pragma once
#include "tessel/gemm_sm90_producer.cuh"

// B_REGS: consumer c's fragments of one stage's B (its kColumns = BN / consumers columns,
// kBlocks blocks of 64, wgmma's A) for the stage's four k8 steps, f[kk][j] as tessel_wgmma_tf32_rs
// takes them, from the MN-major boxes of 32 columns x BK k-rows (128-byte rows whose 16-byte chunks
// are swizzled by the row: chunk ^ k % 8). The k8 steps change no row's swizzle, so each load's
// address is a per-thread base plus constants.
template <class C>
struct tessel_gemm_sm90_b_frags {
  // A consumer per 64 rows of the tile (one or two), each with the same share of columns.
  static constexpr int kColumns = C::BN / tessel_gemm_sm90_layout<C>::kConsumers;
  static constexpr int kBlocks = kColumns / 64;
  unsigned f[4][kBlocks][4];
  __device__ __forceinline__ void load(const unsigned char* stage, int c) {
    using L = tessel_gemm_sm90_layout<C>;
    const int t = threadIdx.x % 128, g = (t % 32) / 4, q = t % 4;
    const unsigned b0 = tessel_smem(stage) + L::kABytes;
#pragma unroll
    for (int j = 0; j < kBlocks; ++j) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int n = c * kColumns + 64 * j + 16 * (t / 32) + g + 8 * (r & 1);
        const int k = q + 4 * (r >> 1);
        const unsigned at =
            b0 + (n / 32) * (C::BK * 128) + k * 128 + ((((n % 32) / 4) ^ k) << 4) + (n % 4) * 4;
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) f[kk][j][r] = tessel_ld_shared_u32(at + kk * 8 * 128);
      }
    }
  }
};

// B_REGS: one stage of consumer c: its fragments of B, then wgmma m64 x BM x k8 for each k8
// step and 64 columns, with the tile's rows of A (K-major) as wgmma's B.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_mma_b_regs(
    float (&acc)[tessel_gemm_sm90_layout<C>::kAccs], tessel_gemm_sm90_b_frags<C>& b,
    const unsigned char* stage, int c, bool first) {
  b.load(stage, c);
  tessel_wgmma_fence();  // the fragments' registers, before the wgmmas read them
  const unsigned rows = tessel_smem(stage);
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    const unsigned long long a = tessel_wgmma_desc(rows + kk * 32, 16, 1024);
#pragma unroll
    for (int j = 0; j < tessel_gemm_sm90_b_frags<C>::kBlocks; ++j) {
      tessel_wgmma_tf32_rs(*(float(*)[C::BM / 2])(acc + C::BM / 2 * j), b.f[kk][j], a,
                           (first && kk == 0) ? 0 : 1);
    }
  }
}

// After a stage's wgmmas are committed (the `kt`-th of the tile): the previous stage's have
// retired once at most one group is in flight, so its slot goes back to the producer; then
// on to the next stage.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_next_stage(unsigned long long* empty, int kt,
                                                            int& previous, int& stage,
                                                            unsigned& phase) {
  if (kt > 0) {
    tessel_wgmma_wait<1>();
    if (threadIdx.x % 128 == 0) tessel_mbar_arrive(&empty[previous]);
  }
  previous = stage;
  if (++stage == C::STAGES) stage = 0, phase ^= 1;
}

// The tile's last stage: its wgmmas retire, its slot goes back.
__device__ __forceinline__ void tessel_gemm_sm90_last_stage(unsigned long long* empty,
                                                            int previous) {
  tessel_wgmma_wait<0>();
  if (threadIdx.x % 128 == 0) tessel_mbar_arrive(&empty[previous]);
}

// B_REGS: one tile's mainloop for consumer c (tessel_gemm_sm90_mainloop's contract). Two
// sets of fragments, stage by stage: a stage's wgmmas may still read one set while the next
// stage's loads fill the other.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_mainloop_b_regs(
    float (&acc)[tessel_gemm_sm90_layout<C>::kAccs], unsigned char* ring, unsigned long long* full,
    unsigned long long* empty, int c, int k_steps, int& stage, unsigned& phase) {
  using L = tessel_gemm_sm90_layout<C>;
  int previous = 0;
  tessel_gemm_sm90_b_frags<C> b[2];
  auto step = [&](tessel_gemm_sm90_b_frags<C>& frags, int kt) {
    tessel_mbar_wait(&full[stage], phase);
    tessel_gemm_sm90_mma_b_regs<C>(acc, frags, ring + stage * L::kStageBytes, c, kt == 0);
    tessel_wgmma_commit();
    tessel_gemm_sm90_next_stage<C>(empty, kt, previous, stage, phase);
  };
  for (int kt = 0; kt < k_steps; kt += 2) {
    step(b[0], kt);
    if (kt + 1 < k_steps) step(b[1], kt + 1);
  }
  tessel_gemm_sm90_last_stage(empty, previous);
}
