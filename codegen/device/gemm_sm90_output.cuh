// tessel device library: how a Hopper GEMM tile leaves the consumers (gemm_sm90.cuh), handed
// to NVRTC as "tessel/gemm_sm90_output.cuh": the consumers round their accumulators into a
// swizzled staging tile (stmatrix), from which a TMA store or the epilogue warps take it.
#pragma once
#include "tessel/ptx.cuh"

// One output tile: its part (sibling or grouped GEMM), batch entry, tile row, and tile
// column within the part.
struct tessel_gemm_sm90_work {
  int part, batch, tm, tn;
};

// A staging tile's rows and its boxes of 64 columns: a consumer's 64 rows x BN (SWAP: the
// tile's BM rows x the consumer's 64 columns). A dual GEMM stages its second product after
// the first, kTileBytes on.
template <class C>
struct tessel_gemm_sm90_staging_shape {
  static constexpr int kRows = C::SWAP ? C::BM : 64, kBoxes = C::SWAP ? 1 : C::BN / 64;
  static constexpr int kTileBytes = kRows * kBoxes * 128;
};

// The byte offset of the 16-byte chunk holding columns col..col+7 (col % 8 == 0) of `row` in
// a consumer's staging tile: BN / 64 boxes of 64 x 64 16-bit values with 128-byte rows, the
// chunk index XOR row % 8. That is the TMA store's 128-byte swizzle, and it puts a warp's
// fragment writes and its 8-column reads on distinct banks.
__device__ __forceinline__ int tessel_gemm_sm90_chunk(int row, int col) {
  return (col / 64) * 8192 + row * 128 + ((((col % 64) / 8) ^ (row % 8)) * 16);
}

// A consumer's accumulators, rounded to the matmul's 16-bit type, into its staging tile.
// Thread t of the warpgroup holds acc[i] of its 64 x N block at row
// 16 (t / 32) + (t % 32) / 4 + 8 ((i >> 1) & 1) and column 8 (i >> 2) + 2 (t % 4) + (i & 1):
// per warp, pairs p = 4q..4q+3 are the 8x8 matrices (rows 0-7 | 8-15) x (columns 16q.. |
// 16q+8..), one stmatrix. Lane l addresses row l % 8 of matrix l / 8. SWAP: the block is the
// output's transpose (64 columns x BM rows), so each matrix is stored transposed, matrix m
// landing at output rows 16q + 8 (m >> 1).. and columns 16 (t / 32) + 8 (m & 1)...
template <class C, int N>
__device__ __forceinline__ void tessel_gemm_sm90_stage(const float (&acc)[N],
                                                       unsigned char* staging) {
  const int t = threadIdx.x % 128, l = t % 32, m = l / 8;
  const unsigned base = tessel_smem(staging);
#pragma unroll
  for (int q = 0; q < N / 8; ++q) {
    unsigned r[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float lo = acc[8 * q + 2 * j], hi = acc[8 * q + 2 * j + 1];
      r[j] = C::F16 ? tessel_pack_f16(lo, hi) : tessel_pack_bf16(lo, hi);
    }
    if constexpr (C::SWAP) {
      const int row = 16 * q + 8 * (m >> 1) + l % 8, col = 16 * (t / 32) + 8 * (m & 1);
      tessel_stmatrix_x4_trans(base + tessel_gemm_sm90_chunk(row, col), r[0], r[1], r[2], r[3]);
    } else {
      const int row = 16 * (t / 32) + 8 * (m & 1) + l % 8, col = 16 * q + 8 * (m >> 1);
      tessel_stmatrix_x4(base + tessel_gemm_sm90_chunk(row, col), r[0], r[1], r[2], r[3]);
    }
  }
}

// Row r, slot s of a staging tile at `base` in pairs of 16-bit values (the layout
// tessel_gemm_sm90_epilogue describes).
template <class C>
__device__ __forceinline__ void tessel_gemm_sm90_staged(
    unsigned base, int r, int s, unsigned (&mm)[4 * tessel_gemm_sm90_staging_shape<C>::kBoxes]) {
  constexpr int kBoxes = tessel_gemm_sm90_staging_shape<C>::kBoxes;
  if constexpr (C::STRIDED) {
#pragma unroll
    for (int k = 0; k < 8 * kBoxes; k += 2) {
      const unsigned lo = tessel_ld_shared_u16(base + tessel_gemm_sm90_chunk(r, 8 * k) + 2 * s);
      const unsigned hi = tessel_ld_shared_u16(base + tessel_gemm_sm90_chunk(r, 8 * k + 8) + 2 * s);
      mm[k / 2] = lo | (hi << 16);
    }
  } else {
#pragma unroll
    for (int j = 0; j < kBoxes; ++j) {
      const uint4 v = tessel_ld_shared_v4(base + tessel_gemm_sm90_chunk(r, 64 * j + 8 * s));
      mm[4 * j] = v.x, mm[4 * j + 1] = v.y, mm[4 * j + 2] = v.z, mm[4 * j + 3] = v.w;
    }
  }
}

// One consumer's staging tile through the epilogue, by kThreads threads (e: this thread's
// index among them), its origin at (row0, col0). A thread takes 8 columns of one row in each
// 64-column box (lane k: column 8 s + 64 (k / 8) + k % 8 for slot s), so its global loads of
// a row are one vector per box in flight together, and a warp's vector touches 4 rows x 128
// contiguous bytes. With C::STRIDED (rows that take no vectors), lane k of slot s is column
// s + 8 k: a warp's scalar access touches 4 rows x 8 adjacent columns.
template <class C, int kThreads, class Epilogue>
__device__ __forceinline__ void tessel_gemm_sm90_epilogue(const unsigned char* staging, int e,
                                                          const tessel_gemm_sm90_work& w,
                                                          int row0, int col0,
                                                          Epilogue& epilogue) {
  constexpr int kBoxes = tessel_gemm_sm90_staging_shape<C>::kBoxes;
  const unsigned base = tessel_smem(staging);
  for (int i = e; i < tessel_gemm_sm90_staging_shape<C>::kRows * 8; i += kThreads) {
    const int r = i / 8, s = i % 8;
    // mm2: DUAL's second product, staged after the first
    unsigned mm[4 * kBoxes], mm2[4 * kBoxes];
    tessel_gemm_sm90_staged<C>(base, r, s, mm);
    if constexpr (C::DUAL) {
      tessel_gemm_sm90_staged<C>(base + tessel_gemm_sm90_staging_shape<C>::kTileBytes, r, s, mm2);
    }
    const int col = col0 + (C::STRIDED ? s : 8 * s);
    if constexpr (C::DUAL) {
      epilogue(mm, mm2, w.part, w.batch, row0 + r, col);
    } else {
      epilogue(mm, w.part, w.batch, row0 + r, col);
    }
  }
}

// For TMA_STORE kernels, which have no epilogue warps.
struct tessel_gemm_sm90_no_epilogue {
  template <int N>
  __device__ void operator()(const unsigned (&)[N], int, int, int, int) const {}
};

// For kernels without TMA stores: no output maps.
struct tessel_gemm_sm90_no_store {
  __device__ const tessel_tensor_map* operator()(int) const { return nullptr; }
};
