
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// part 0: [100 x 64] x [64 x 136], batch of 1; A K-major, B MN-major
// part 1: [100 x 64] x [64 x 72], batch of 1; A K-major, B MN-major
// part 2: [100 x 64] x [64 x 40], batch of 1; A K-major, B MN-major
struct gemm_config {
  static constexpr int N = 136, K = 64, BATCH = 1;
  static constexpr int LDA = 64, LDB = 136;  // operand rows as the mainloop reads them, in elements
  static constexpr bool A_MN = false, B_MN = true, F16 = false;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 64, BN = 64, BK = 64, STAGES = 8, GROUP_M = 16, SMEM = 140456, A_BOX_ROWS = 64;
  static constexpr bool TF32 = false, SPLIT = false, B_REGS = false, TMA_STORE = false, STRIDED = false, DUAL = false, GROUPED = false, SWAP = false, KEEP_A = false;
  static constexpr int K_SLICES = 1, MAX_PIECES = 0;  // (the most slices of a tile, and of all)
  static constexpr bool CUT_ALL = false;  // (every tile in K_SLICES slices)
  static constexpr long long FIXUP_BYTES = 0;
  static constexpr int TILES_N = 6;  // 3 + 2 + 1 for the parts
  static __device__ int part(int& tn) {
    if (tn < 3) return 0;
    if (tn < 5) return tn -= 3, 1;
    return tn -= 5, 2;
  }
};

extern "C" __global__ void __launch_bounds__(384, 1) G_matmul_add_cast_mul_f9793eca(const bf16_t* in0, const bf16_t* in1, const bf16_t* in2, const bf16_t* in3, const bf16_t* in4, const bf16_t* in5, bf16_t* __restrict__ out0, bf16_t* __restrict__ out1, bf16_t* __restrict__ out2, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1, const __grid_constant__ tessel_tensor_map tmap2, const __grid_constant__ tessel_tensor_map tmap3, float s0, float s1, float s2) {
  const auto a_map = [&](int) { return &tmap0; };
  const auto b_map = [&](int part) { return part == 0 ? &tmap1 : part == 1 ? &tmap2 : &tmap3; };
  // The epilogue warps: outputs (row, col + 64 (k / 8) + k % 8), k < 8, from the matmul's 16-bit values in pairs, mm[k / 2].
  tessel_gemm_sm90<gemm_config>(a_map, b_map, tessel_gemm_sm90_no_store{}, [&](const unsigned (&mm)[4], int part, int batch, int row, int col) {
    switch (part) {
      case 0: {
        unsigned in2_0[4];
        #pragma unroll
        for (int k = 0; k < 8; k += 8) {
          tessel_vec<unsigned, 4> vec{};
          if (row < 100 && (col + k % 8 + 64 * (k / 8)) < 136) vec = tessel_load_vec<unsigned, 4>((const unsigned*)(in2 + (col + k % 8 + 64 * (k / 8))));
          #pragma unroll
          for (int j = 0; j < 4; ++j) in2_0[k / 2 + j] = vec.v[j];
        }
        unsigned add0[4];
        #pragma unroll
        for (int p = 0; p < 4; ++p) add0[p] = tessel_add_bf16x2(mm[p], in2_0[p]);
        float mul0[8];
        #pragma unroll
        for (int k = 0; k < 8; ++k) mul0[k] = (s1 * tessel_bf16_lane(add0, k));
        float mul1[8];
        #pragma unroll
        for (int k = 0; k < 8; ++k) mul1[k] = (mul0[k] * tessel_bf16_lane(add0, k));
        float mul2[8];
        #pragma unroll
        for (int k = 0; k < 8; ++k) mul2[k] = (mul1[k] * tessel_bf16_lane(add0, k));
        float add1[8];
        #pragma unroll
        for (int k = 0; k < 8; ++k) add1[k] = (tessel_bf16_lane(add0, k) + mul2[k]);
        float mul3[8];
        #pragma unroll
        for (int k = 0; k < 8; ++k) mul3[k] = (s0 * add1[k]);
        float sigmoid0[8];
        #pragma unroll
        for (int k = 0; k < 8; ++k) sigmoid0[k] = tessel_rcp(1.0f + expf(-mul3[k]));
        float mul4[8];
        #pragma unroll
        for (int k = 0; k < 8; ++k) mul4[k] = (tessel_bf16_lane(add0, k) * sigmoid0[k]);
        unsigned cvt0[4];
        #pragma unroll
        for (int p = 0; p < 4; ++p) cvt0[p] = tessel_pack_bf16(mul4[2 * p], mul4[2 * p + 1]);
        #pragma unroll
        for (int k = 0; k < 8; k += 8) {
          tessel_vec<unsigned, 4> vec;
          #pragma unroll
          for (int j = 0; j < 4; ++j) vec.v[j] = cvt0[k / 2 + j];
          if (row < 100 && (col + k % 8 + 64 * (k / 8)) < 136) tessel_store_vec<unsigned, 4>((unsigned*)(out0 + (row * 136 + (col + k % 8 + 64 * (k / 8)))), vec);
        }
      } break;
      case 1: {
        unsigned in4_0[4];
        #pragma unroll
        for (int k = 0; k < 8; k += 8) {
          tessel_vec<unsigned, 4> vec{};
          if (row < 100 && (col + k % 8 + 64 * (k / 8)) < 72) vec = tessel_load_vec<unsigned, 4>((const unsigned*)(in4 + (row * 72 + (col + k % 8 + 64 * (k / 8)))));
          #pragma unroll
          for (int j = 0; j < 4; ++j) in4_0[k / 2 + j] = vec.v[j];
        }
        unsigned mul0[4];
        #pragma unroll
        for (int p = 0; p < 4; ++p) mul0[p] = tessel_mul_bf16x2(mm[p], tessel_pack_bf16(s2, s2));
        unsigned add0[4];
        #pragma unroll
        for (int p = 0; p < 4; ++p) add0[p] = tessel_add_bf16x2(mul0[p], in4_0[p]);
        #pragma unroll
        for (int k = 0; k < 8; k += 8) {
          tessel_vec<unsigned, 4> vec;
          #pragma unroll
          for (int j = 0; j < 4; ++j) vec.v[j] = add0[k / 2 + j];
          if (row < 100 && (col + k % 8 + 64 * (k / 8)) < 72) tessel_store_vec<unsigned, 4>((unsigned*)(out1 + (row * 72 + (col + k % 8 + 64 * (k / 8)))), vec);
        }
      } break;
      case 2: {
        #pragma unroll
        for (int k = 0; k < 8; k += 8) {
          tessel_vec<unsigned, 4> vec;
          #pragma unroll
          for (int j = 0; j < 4; ++j) vec.v[j] = mm[k / 2 + j];
          if (row < 100 && (col + k % 8 + 64 * (k / 8)) < 40) tessel_store_vec<unsigned, 4>((unsigned*)(out2 + (row * 40 + (col + k % 8 + 64 * (k / 8)))), vec);
        }
      } break;
    }
  }, 100);
}
