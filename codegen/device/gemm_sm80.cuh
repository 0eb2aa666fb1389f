// tessel device library: the portable tensor-core GEMM mainloop (sm_80 and later), handed to
// NVRTC as the named header "tessel/gemm_sm80.cuh": mma.sync m16n8k16 fed by ldmatrix from a
// ring of C::STAGES shared-memory stages that cp.async fills ahead of use. The code generator
// writes a configuration C, the epilogue and the kernel that instantiates tessel_gemm_sm80<C>.
//
// A 128 x 128 tile per block of 8 warps (2 x 4), each warp 64 x 32. Shared tiles keep the
// global layout (rows of the contiguous axis) padded by 16 bytes per row, which puts the 8
// rows an ldmatrix reads on distinct banks for every layout.
//
// C provides: M, N, K, BATCH, STAGES, A_MN / B_MN (operand stored MN-major), F16, SMEM
// (dynamic shared bytes the host reserves), and
// `static __device__ int a_batch(int)`, `b_batch(int)` as for tessel_gemm_sm90. Operands'
// contiguous extents are multiples of 8 (16-byte copies).
#pragma once
#include "tessel/ptx.cuh"

template <class C>
struct tessel_gemm_sm80_layout {
  static constexpr int BM = 128, BN = 128, BK = 32, kPad = 8;
  // Each operand tile as stored: rows x (contiguous columns + pad), in elements.
  static constexpr int kARows = C::A_MN ? BK : BM, kACols = (C::A_MN ? BM : BK) + kPad;
  static constexpr int kBRows = C::B_MN ? BK : BN, kBCols = (C::B_MN ? BN : BK) + kPad;
  static constexpr int kStageElems = kARows * kACols + kBRows * kBCols;
  static constexpr int kSmemBytes = C::STAGES * kStageElems * 2;
  static constexpr int kKSteps = (C::K + BK - 1) / BK;
  static_assert(C::SMEM >= kSmemBytes, "the host reserves too little shared memory");
};

// Copies one operand's tile (rows x cols of the contiguous layout, starting at global
// (row0, col0) of a rows_total x cols_total matrix) into shared memory, 16 bytes per copy;
// copies past the matrix's edge fill zeros.
template <int ROWS, int COLS, int PITCH>
__device__ __forceinline__ void tessel_gemm_sm80_copy(unsigned short* dst,
                                                      const unsigned short* src, int row0,
                                                      int col0, int rows_total,
                                                      int cols_total) {
  constexpr int kChunks = ROWS * COLS / 8;
#pragma unroll
  for (int i = threadIdx.x; i < kChunks; i += 256) {
    const int r = i / (COLS / 8), c = (i % (COLS / 8)) * 8;
    const bool inside = row0 + r < rows_total && col0 + c < cols_total;
    const unsigned short* from =
        inside ? src + (long long)(row0 + r) * cols_total + col0 + c : src;
    tessel_cp_async_16(dst + r * PITCH + c, from, inside);
  }
}

// `epilogue(acc, batch, row0, col0)` runs in every thread once the block's tile (rows
// row0.., columns col0..) is complete. Lane l of warp w holds acc[4 (4 mi + ni) + 2 h + j]
// at row row0 + 64 (w / 4) + 16 mi + l / 4 + 8 h, column col0 + 32 (w % 4) + 8 ni +
// 2 (l % 4) + j.
template <class C, class Epilogue>
__device__ __forceinline__ void tessel_gemm_sm80(const unsigned short* a,
                                                 const unsigned short* b, Epilogue epilogue) {
  using L = tessel_gemm_sm80_layout<C>;
  extern __shared__ __align__(16) unsigned short tessel_sm80_smem[];
  const int batch = blockIdx.z, row0 = blockIdx.y * L::BM, col0 = blockIdx.x * L::BN;
  a += (long long)C::a_batch(batch) * C::M * C::K;
  b += (long long)C::b_batch(batch) * C::K * C::N;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;

  auto load_stage = [&](int kt) {
    unsigned short* sa = tessel_sm80_smem + (kt % C::STAGES) * L::kStageElems;
    unsigned short* sb = sa + L::kARows * L::kACols;
    const int k0 = kt * L::BK;
    if constexpr (C::A_MN) {
      tessel_gemm_sm80_copy<L::BK, L::BM, L::kACols>(sa, a, k0, row0, C::K, C::M);
    } else {
      tessel_gemm_sm80_copy<L::BM, L::BK, L::kACols>(sa, a, row0, k0, C::M, C::K);
    }
    if constexpr (C::B_MN) {
      tessel_gemm_sm80_copy<L::BK, L::BN, L::kBCols>(sb, b, k0, col0, C::K, C::N);
    } else {
      tessel_gemm_sm80_copy<L::BN, L::BK, L::kBCols>(sb, b, col0, k0, C::N, C::K);
    }
  };

  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
#pragma unroll
  for (int s = 0; s < C::STAGES - 1; ++s) {
    if (s < L::kKSteps) load_stage(s);
    tessel_cp_async_commit();
  }
  for (int kt = 0; kt < L::kKSteps; ++kt) {
    tessel_cp_async_wait<C::STAGES - 2>();  // stage kt has landed (this thread's copies)
    __syncthreads();                        // ... and everyone's; stage kt - 1 is free
    if (kt + C::STAGES - 1 < L::kKSteps) load_stage(kt + C::STAGES - 1);
    tessel_cp_async_commit();
    const unsigned short* sa = tessel_sm80_smem + (kt % C::STAGES) * L::kStageElems;
    const unsigned short* sb = sa + L::kARows * L::kACols;
#pragma unroll
    for (int kk = 0; kk < L::BK; kk += 16) {
      unsigned af[4][4], bf[4][2];
      // Lane l addresses row l % 8 of 8x8 matrix l / 8.
      const int r = lane % 8, half = (lane / 8) % 2, pair = lane / 16;
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        const int m = wm + 16 * mi;
        if constexpr (C::A_MN) {
          tessel_ldmatrix_x4_trans(af[mi], sa + (kk + r + 8 * pair) * L::kACols + m + 8 * half);
        } else {
          tessel_ldmatrix_x4(af[mi], sa + (m + r + 8 * half) * L::kACols + kk + 8 * pair);
        }
      }
#pragma unroll
      for (int nj = 0; nj < 2; ++nj) {
        const int n = wn + 16 * nj;
        unsigned q[4];
        if constexpr (C::B_MN) {
          tessel_ldmatrix_x4_trans(q, sb + (kk + r + 8 * half) * L::kBCols + n + 8 * pair);
        } else {
          tessel_ldmatrix_x4(q, sb + (n + r + 8 * pair) * L::kBCols + kk + 8 * half);
        }
        bf[2 * nj][0] = q[0], bf[2 * nj][1] = q[1], bf[2 * nj + 1][0] = q[2], bf[2 * nj + 1][1] = q[3];
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) {
          tessel_mma_16816<C::F16>(&acc[4 * (4 * mi + ni)], af[mi], bf[ni]);
        }
      }
    }
  }
  epilogue(acc, batch, row0 + wm, col0 + wn);
}
