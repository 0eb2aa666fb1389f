// tessel device library: the portable tensor-core GEMM mainloop (sm_80 and later), handed to
// NVRTC as the named header "tessel/gemm_sm80.cuh": mma.sync fed from a ring of C::STAGES
// shared-memory stages that cp.async fills ahead of use. The code generator writes a
// configuration C, the epilogue and the kernel that instantiates tessel_gemm_sm80<C>.
//
// A 128 x 128 tile per block of 8 warps (2 x 4), each warp 64 x 32, and 64 bytes of K per
// stage (32 16-bit values or 16 floats). Shared tiles keep the global layout (rows of the
// contiguous axis), rows padded so that the 8 rows an ldmatrix reads, or a warp's scalar
// fragment loads, fall on distinct banks.
// - 16-bit operands: m16n8k16, fragments by ldmatrix (.trans for MN-major tiles).
// - C::TF32 (f32 operands): m16n8k8 on TF32, each operand truncated to TF32 as it enters a
//   fragment (as wgmma reads f32 in shared memory); with C::SPLIT, each operand x is split
//   into its TF32 part (rounded) and the TF32 rounding of x minus it, three products
//   accumulate (small terms first) in a stage's partial sums, which join the accumulators in
//   f32 (the tensor cores' adds truncate: see gemm_sm90.cuh); ldmatrix reads K-major tiles
//   (a row of 4 floats is a row of 8 16-bit halves), scalar loads read MN-major ones.
//
// The output's row count m is an argument, as for tessel_gemm_sm90.
// C provides: N, K, BATCH, LDA / LDB (each operand's row pitch in elements), STAGES, A_MN /
// B_MN (operand stored MN-major), F16, TF32,
// SMEM (dynamic shared bytes the host reserves), `typedef ... T` (the operand element type),
// and `static __device__ int a_batch(int)`, `b_batch(int)` as for tessel_gemm_sm90.
// Operands' row pitches are multiples of 16 bytes; a row shorter than its pitch is followed
// by zeros (a staged copy), so a 16-byte copy that starts inside the row may end past it.
#pragma once
#include "tessel/ptx.cuh"

template <class C>
struct tessel_gemm_sm80_layout {
  static constexpr int kElem = sizeof(typename C::T);
  static constexpr int BM = 128, BN = 128, BK = 64 / kElem;  // 64-byte rows of K
  // Row padding in elements: 16 bytes, or 8 floats for TF32's MN-major tiles (a warp's
  // scalar loads then cover 32 banks: 4 rows 8 banks apart, 8 columns).
  static constexpr int kPadK = 16 / kElem, kPadMN = C::TF32 ? 8 : 16 / kElem;
  // Each operand tile as stored: rows x (contiguous columns + pad), in elements.
  static constexpr int kARows = C::A_MN ? BK : BM, kACols = C::A_MN ? BM + kPadMN : BK + kPadK;
  static constexpr int kBRows = C::B_MN ? BK : BN, kBCols = C::B_MN ? BN + kPadMN : BK + kPadK;
  static constexpr int kStageElems = kARows * kACols + kBRows * kBCols;
  static constexpr int kSmemBytes = C::STAGES * kStageElems * kElem;
  static constexpr int kKSteps = (C::K + BK - 1) / BK;
  static_assert(C::SMEM >= kSmemBytes, "the host reserves too little shared memory");
};

// Copies one operand's tile (rows x cols of the contiguous layout, starting at global
// (row0, col0) of a rows_total x cols_total matrix whose rows are `pitch` apart) into shared
// memory, 16 bytes per copy; copies past the matrix's edge fill zeros.
template <int ROWS, int COLS, int PITCH, class T>
__device__ __forceinline__ void tessel_gemm_sm80_copy(T* dst, const T* src, int row0, int col0,
                                                      int rows_total, int cols_total, int pitch) {
  constexpr int kPerCopy = 16 / sizeof(T), kChunks = ROWS * COLS / kPerCopy;
#pragma unroll
  for (int i = threadIdx.x; i < kChunks; i += 256) {
    const int r = i / (COLS / kPerCopy), c = (i % (COLS / kPerCopy)) * kPerCopy;
    const bool inside = row0 + r < rows_total && col0 + c < cols_total;
    const T* from = inside ? src + (long long)(row0 + r) * pitch + col0 + c : src;
    tessel_copy_16_async(dst + r * PITCH + c, from, inside);
  }
}

// One k16 step of a warp's 64 x 32 block from 16-bit tiles `sa`, `sb` (one stage).
template <class C>
__device__ __forceinline__ void tessel_gemm_sm80_step16(float (&acc)[64], const typename C::T* sa,
                                                        const typename C::T* sb, int kk, int wm,
                                                        int wn) {
  using L = tessel_gemm_sm80_layout<C>;
  const int lane = threadIdx.x % 32;
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
    bf[2 * nj][0] = q[0], bf[2 * nj][1] = q[1];
    bf[2 * nj + 1][0] = q[2], bf[2 * nj + 1][1] = q[3];
  }
#pragma unroll
  for (int mi = 0; mi < 4; ++mi) {
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      tessel_mma_16816<C::F16>(&acc[4 * (4 * mi + ni)], af[mi], bf[ni]);
    }
  }
}

__device__ __forceinline__ unsigned tessel_tf32_bits(unsigned f32) {
  return __float_as_uint(tessel_tf32(__uint_as_float(f32)));
}

// x (f32 bits) as its TF32 part `big` (in place) and the TF32 rounding of the rest, `small`:
// big + small holds x to about 2^-22 of it.
__device__ __forceinline__ void tessel_tf32_split(unsigned& big, unsigned& small) {
  const float x = __uint_as_float(big);
  float hi = tessel_round_tf32(x);
  // Finite past the largest TF32 value: the part truncated, so that the rest stays finite.
  if (isinf(hi) && isfinite(x)) hi = __uint_as_float(__float_as_uint(x) & 0xffffe000u);
  big = __float_as_uint(hi);
  small = __float_as_uint(isfinite(hi) ? tessel_round_tf32(x - hi) : 0.0f);  // inf: no rest
}
// A TF32 part for the remainder products: an infinity counts 0 there (inf x 0 would make NaN
// of the infinity the parts' product gives, as f32 does).
__device__ __forceinline__ unsigned tessel_tf32_finite(unsigned big) {
  return isfinite(__uint_as_float(big)) ? big : 0u;
}

// One k8 step on TF32 from f32 tiles. Fragments (g = lane / 4, t = lane % 4): A holds
// (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4) of its 16 x 8 block; B holds (k t, n g) and
// (k t + 4, n g) of its 8 x 8 block.
template <class C>
__device__ __forceinline__ void tessel_gemm_sm80_step_tf32(float (&acc)[64], const float* sa,
                                                           const float* sb, int kk, int wm,
                                                           int wn) {
  using L = tessel_gemm_sm80_layout<C>;
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  // ldmatrix on K-major rows of 4 floats: lane l addresses row l % 8 of matrix l / 8.
  const int r = lane % 8, mat = lane / 8;
  unsigned af[4][4], bf[4][2];
#pragma unroll
  for (int mi = 0; mi < 4; ++mi) {
    const int m = wm + 16 * mi;
    if constexpr (C::A_MN) {
      const float* col = sa + m + g;
      af[mi][0] = __float_as_uint(col[(kk + t) * L::kACols]);
      af[mi][1] = __float_as_uint(col[(kk + t) * L::kACols + 8]);
      af[mi][2] = __float_as_uint(col[(kk + t + 4) * L::kACols]);
      af[mi][3] = __float_as_uint(col[(kk + t + 4) * L::kACols + 8]);
    } else {
      tessel_ldmatrix_x4(af[mi], sa + (m + r + 8 * (mat & 1)) * L::kACols + kk + 4 * (mat >> 1));
    }
  }
#pragma unroll
  for (int nj = 0; nj < 2; ++nj) {
    const int n = wn + 16 * nj;
    if constexpr (C::B_MN) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        bf[2 * nj + h][0] = __float_as_uint(sb[(kk + t) * L::kBCols + n + 8 * h + g]);
        bf[2 * nj + h][1] = __float_as_uint(sb[(kk + t + 4) * L::kBCols + n + 8 * h + g]);
      }
    } else {
      unsigned q[4];  // matrices: (n 0-7, k 0-3), (n 0-7, k 4-7), (n 8-15, k 0-3), (n 8-15, k 4-7)
      tessel_ldmatrix_x4(q, sb + (n + r + 8 * (mat >> 1)) * L::kBCols + kk + 4 * (mat & 1));
      bf[2 * nj][0] = q[0], bf[2 * nj][1] = q[1];
      bf[2 * nj + 1][0] = q[2], bf[2 * nj + 1][1] = q[3];
    }
  }
  if constexpr (C::SPLIT) {
    unsigned bs[4][2];  // B's remainders; A's are split one row block at a time (registers)
#pragma unroll
    for (int i = 0; i < 4; ++i)
      tessel_tf32_split(bf[i][0], bs[i][0]), tessel_tf32_split(bf[i][1], bs[i][1]);
#pragma unroll
    for (int mi = 0; mi < 4; ++mi) {
      unsigned rest[4];  // A's remainders, then its finite parts (registers)
#pragma unroll
      for (int j = 0; j < 4; ++j) tessel_tf32_split(af[mi][j], rest[j]);
#pragma unroll
      for (int ni = 0; ni < 4; ++ni) {
        const unsigned bm[2] = {tessel_tf32_finite(bf[ni][0]), tessel_tf32_finite(bf[ni][1])};
        tessel_mma_1688_tf32(&acc[4 * (4 * mi + ni)], rest, bm);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) rest[j] = tessel_tf32_finite(af[mi][j]);
#pragma unroll
      for (int ni = 0; ni < 4; ++ni) tessel_mma_1688_tf32(&acc[4 * (4 * mi + ni)], rest, bs[ni]);
#pragma unroll
      for (int ni = 0; ni < 4; ++ni) tessel_mma_1688_tf32(&acc[4 * (4 * mi + ni)], af[mi], bf[ni]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
      for (int j = 0; j < 4; ++j) af[i][j] = tessel_tf32_bits(af[i][j]);
      bf[i][0] = tessel_tf32_bits(bf[i][0]), bf[i][1] = tessel_tf32_bits(bf[i][1]);
    }
#pragma unroll
    for (int mi = 0; mi < 4; ++mi) {
#pragma unroll
      for (int ni = 0; ni < 4; ++ni) tessel_mma_1688_tf32(&acc[4 * (4 * mi + ni)], af[mi], bf[ni]);
    }
  }
}

// `epilogue(acc, batch, row0, col0)` runs in every thread once the block's tile (rows
// row0.., columns col0..) is complete. Lane l of warp w holds acc[4 (4 mi + ni) + 2 h + j]
// at row row0 + 64 (w / 4) + 16 mi + l / 4 + 8 h, column col0 + 32 (w % 4) + 8 ni +
// 2 (l % 4) + j.
template <class C, class Epilogue>
__device__ __forceinline__ void tessel_gemm_sm80(const typename C::T* a, const typename C::T* b,
                                                 Epilogue epilogue, int m) {
  using L = tessel_gemm_sm80_layout<C>;
  using T = typename C::T;
  extern __shared__ __align__(16) unsigned char tessel_sm80_raw[];
  T* tessel_sm80_smem = reinterpret_cast<T*>(tessel_sm80_raw);
  // One block per tile, columns fastest, then rows, then batch entries: grid.x alone, which
  // has room for any batch (grid.y and grid.z stop at 65535).
  constexpr long long kTilesN = (C::N + L::BN - 1) / L::BN;
  const long long tiles_m = (m + L::BM - 1) / L::BM;
  const long long tile = blockIdx.x;
  const int col0 = (int)(tile % kTilesN) * L::BN, row0 = (int)(tile / kTilesN % tiles_m) * L::BM;
  const int batch = (int)(tile / (kTilesN * tiles_m));
  a += (long long)C::a_batch(batch) * (C::A_MN ? C::K : m) * C::LDA;
  b += (long long)C::b_batch(batch) * (C::B_MN ? C::K : C::N) * C::LDB;
  const int warp = threadIdx.x / 32;
  const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;

  auto load_stage = [&](int kt) {
    T* sa = tessel_sm80_smem + (kt % C::STAGES) * L::kStageElems;
    T* sb = sa + L::kARows * L::kACols;
    const int k0 = kt * L::BK;
    if constexpr (C::A_MN) {
      tessel_gemm_sm80_copy<L::BK, L::BM, L::kACols>(sa, a, k0, row0, C::K, m, C::LDA);
    } else {
      tessel_gemm_sm80_copy<L::BM, L::BK, L::kACols>(sa, a, row0, k0, m, C::K, C::LDA);
    }
    if constexpr (C::B_MN) {
      tessel_gemm_sm80_copy<L::BK, L::BN, L::kBCols>(sb, b, k0, col0, C::K, C::N, C::LDB);
    } else {
      tessel_gemm_sm80_copy<L::BN, L::BK, L::kBCols>(sb, b, col0, k0, C::N, C::K, C::LDB);
    }
  };

  float acc[64], part[64];  // part: SPLIT's sums of a stage (else unused)
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
    const T* sa = tessel_sm80_smem + (kt % C::STAGES) * L::kStageElems;
    const T* sb = sa + L::kARows * L::kACols;
    if constexpr (C::SPLIT) {
#pragma unroll
      for (int i = 0; i < 64; ++i) part[i] = 0.0f;
#pragma unroll
      for (int kk = 0; kk < L::BK; kk += 8) tessel_gemm_sm80_step_tf32<C>(part, sa, sb, kk, wm, wn);
#pragma unroll
      for (int i = 0; i < 64; ++i) acc[i] += part[i];
    } else if constexpr (C::TF32) {
#pragma unroll
      for (int kk = 0; kk < L::BK; kk += 8) tessel_gemm_sm80_step_tf32<C>(acc, sa, sb, kk, wm, wn);
    } else {
#pragma unroll
      for (int kk = 0; kk < L::BK; kk += 16) tessel_gemm_sm80_step16<C>(acc, sa, sb, kk, wm, wn);
    }
  }
  epilogue(acc, batch, row0 + wm, col0 + wn);
}
