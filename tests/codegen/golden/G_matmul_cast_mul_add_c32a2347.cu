
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// dual, first: [64 x 128] x [128 x 264], batch of 1; A K-major, B MN-major
// dual, second: [64 x 128] x [128 x 264], batch of 1; A K-major, B MN-major
struct gemm_config {
  static constexpr int N = 264, K = 128, BATCH = 1;
  static constexpr int LDA = 128, LDB = 264;  // operand rows as the mainloop reads them, in elements
  static constexpr bool A_MN = false, B_MN = true, F16 = true;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 64, BN = 64, BK = 64, STAGES = 8, GROUP_M = 16, SMEM = 214184, A_BOX_ROWS = 64;
  static constexpr bool TF32 = false, SPLIT = false, B_REGS = false, TMA_STORE = false, STRIDED = false, DUAL = true, GROUPED = false, SWAP = false, KEEP_A = false;
  static constexpr int K_SLICES = 1, MAX_PIECES = 0;  // (the most slices of a tile, and of all)
  static constexpr bool CUT_ALL = false;  // (every tile in K_SLICES slices)
  static constexpr long long FIXUP_BYTES = 0;
  static constexpr int TILES_N = 5;
  static __device__ int part(int&) { return 0; }
};

extern "C" __global__ void __launch_bounds__(384, 1) G_matmul_cast_mul_add_c32a2347(const f16_t* in0, const f16_t* in1, const f16_t* in2, f16_t* __restrict__ out0, f16_t* __restrict__ out1, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1, const __grid_constant__ tessel_tensor_map tmap2, float s0, float s1) {
  const auto a_map = [&](int) { return &tmap0; };
  const auto b_map = [&](int part) { return part == 0 ? &tmap1 : &tmap2; };
  // The epilogue warps: outputs (row, col + 64 (k / 8) + k % 8), k < 8, from the matmul's 16-bit values in pairs, mm[k / 2] (the second matmul's: mm2).
  tessel_gemm_sm90<gemm_config>(a_map, b_map, tessel_gemm_sm90_no_store{}, [&](const unsigned (&mm)[4], const unsigned (&mm2)[4], int part, int batch, int row, int col) {
    #pragma unroll
    for (int k = 0; k < 8; k += 8) {
      tessel_vec<unsigned, 4> vec;
      #pragma unroll
      for (int j = 0; j < 4; ++j) vec.v[j] = mm[k / 2 + j];
      if ((col + k % 8 + 64 * (k / 8)) < 264) tessel_store_vec<unsigned, 4>((unsigned*)(out0 + (row * 264 + (col + k % 8 + 64 * (k / 8)))), vec);
    }
    float mul0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul0[k] = (s1 * tessel_f16_lane(mm, k));
    float mul1[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul1[k] = (mul0[k] * tessel_f16_lane(mm, k));
    float mul2[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul2[k] = (mul1[k] * tessel_f16_lane(mm, k));
    float add0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) add0[k] = (tessel_f16_lane(mm, k) + mul2[k]);
    float mul3[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul3[k] = (s0 * add0[k]);
    float sigmoid0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) sigmoid0[k] = tessel_rcp(1.0f + expf(-mul3[k]));
    float mul4[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul4[k] = (tessel_f16_lane(mm, k) * sigmoid0[k]);
    unsigned cvt0[4];
    #pragma unroll
    for (int p = 0; p < 4; ++p) cvt0[p] = tessel_pack_f16(mul4[2 * p], mul4[2 * p + 1]);
    unsigned mul5[4];
    #pragma unroll
    for (int p = 0; p < 4; ++p) mul5[p] = tessel_mul_f16x2(cvt0[p], mm2[p]);
    #pragma unroll
    for (int k = 0; k < 8; k += 8) {
      tessel_vec<unsigned, 4> vec;
      #pragma unroll
      for (int j = 0; j < 4; ++j) vec.v[j] = mul5[k / 2 + j];
      if ((col + k % 8 + 64 * (k / 8)) < 264) tessel_store_vec<unsigned, 4>((unsigned*)(out1 + (row * 264 + (col + k % 8 + 64 * (k / 8)))), vec);
    }
  }, 64);
}
