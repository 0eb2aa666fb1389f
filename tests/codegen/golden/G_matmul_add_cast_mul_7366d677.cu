
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// part 0: [1 x 128] x [128 x 264], batch of 1; A K-major, B MN-major
// part 1: [50 x 128] x [128 x 264], batch of 1; A K-major, B MN-major
// part 2: [7 x 128] x [128 x 264], batch of 1; A K-major, B MN-major
// part 3: [33 x 128] x [128 x 264], batch of 1; A K-major, B MN-major
// part 4: [300 x 64] x [64 x 136], batch of 1; A K-major, B MN-major
// part 5: [129 x 200] x [200 x 72], batch of 1; A K-major, B MN-major
struct gemm_config {
  static constexpr int N = 264, K = 128, BATCH = 1;
  static constexpr int LDA = 128, LDB = 264;  // operand rows as the mainloop reads them, in elements
  static constexpr bool A_MN = false, B_MN = true, F16 = false;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 64, BN = 64, BK = 64, STAGES = 8, GROUP_M = 16, SMEM = 140456, A_BOX_ROWS = 64;
  static constexpr bool TF32 = false, SPLIT = false, B_REGS = false, TMA_STORE = false, STRIDED = false, DUAL = false, GROUPED = true, SWAP = false, KEEP_A = false;
  static constexpr int K_SLICES = 1, MAX_PIECES = 0;  // (the most slices of a tile, and of all)
  static constexpr bool CUT_ALL = false;  // (every tile in K_SLICES slices)
  static constexpr long long FIXUP_BYTES = 0;
  static constexpr int TILES = 41;
  static __device__ tessel_gemm_sm90_work work(int t) {
    tessel_gemm_sm90_work w{0, 0, 0, 0};
    if (t < 6) {
      w.part = 5;
      tessel_gemm_sm90_band<gemm_config>(t - 0, 3, 2, w.tm, w.tn);
      return w;
    }
    if (t < 11) {
      w.part = 0;
      tessel_gemm_sm90_band<gemm_config>(t - 6, 1, 5, w.tm, w.tn);
      return w;
    }
    if (t < 16) {
      w.part = 1;
      tessel_gemm_sm90_band<gemm_config>(t - 11, 1, 5, w.tm, w.tn);
      return w;
    }
    if (t < 21) {
      w.part = 2;
      tessel_gemm_sm90_band<gemm_config>(t - 16, 1, 5, w.tm, w.tn);
      return w;
    }
    if (t < 26) {
      w.part = 3;
      tessel_gemm_sm90_band<gemm_config>(t - 21, 1, 5, w.tm, w.tn);
      return w;
    }
    w.part = 4;
    tessel_gemm_sm90_band<gemm_config>(t - 26, 5, 3, w.tm, w.tn);
    return w;
  }
  static __device__ int k_steps(int part) {
    if (part == 0) return 2;
    if (part == 1) return 2;
    if (part == 2) return 2;
    if (part == 3) return 2;
    if (part == 4) return 1;
    return 4;
  }
};

extern "C" __global__ void __launch_bounds__(384, 1) G_matmul_add_cast_mul_7366d677(const bf16_t* in0, const bf16_t* in1, const bf16_t* in2, const bf16_t* in3, const bf16_t* in4, const bf16_t* in5, const bf16_t* in6, const bf16_t* in7, const bf16_t* in8, const bf16_t* in9, const bf16_t* in10, const bf16_t* in11, const bf16_t* in12, bf16_t* __restrict__ out0, bf16_t* __restrict__ out1, bf16_t* __restrict__ out2, bf16_t* __restrict__ out3, bf16_t* __restrict__ out4, bf16_t* __restrict__ out5, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1, const __grid_constant__ tessel_tensor_map tmap2, const __grid_constant__ tessel_tensor_map tmap3, const __grid_constant__ tessel_tensor_map tmap4, const __grid_constant__ tessel_tensor_map tmap5, const __grid_constant__ tessel_tensor_map tmap6, const __grid_constant__ tessel_tensor_map tmap7, const __grid_constant__ tessel_tensor_map tmap8, const __grid_constant__ tessel_tensor_map tmap9, const __grid_constant__ tessel_tensor_map tmap10, const __grid_constant__ tessel_tensor_map tmap11, float s0, float s1, float s2) {
  const auto a_map = [&](int part) { return part == 0 ? &tmap0 : part == 1 ? &tmap1 : part == 2 ? &tmap2 : part == 3 ? &tmap3 : part == 4 ? &tmap4 : &tmap5; };
  const auto b_map = [&](int part) { return part == 0 ? &tmap6 : part == 1 ? &tmap7 : part == 2 ? &tmap8 : part == 3 ? &tmap9 : part == 4 ? &tmap10 : &tmap11; };
  // The epilogue warps: outputs (row, col + 64 (k / 8) + k % 8), k < 8, from the matmul's 16-bit values in pairs, mm[k / 2].
  tessel_gemm_sm90<gemm_config>(a_map, b_map, tessel_gemm_sm90_no_store{}, [&](const unsigned (&mm)[4], int part, int batch, int row, int col) {
    switch (part) {
      case 0: {
        #pragma unroll
        for (int k = 0; k < 8; k += 8) {
          tessel_vec<unsigned, 4> vec;
          #pragma unroll
          for (int j = 0; j < 4; ++j) vec.v[j] = mm[k / 2 + j];
          if (row < 1 && (col + k % 8 + 64 * (k / 8)) < 264) tessel_store_vec<unsigned, 4>((unsigned*)(out0 + (col + k % 8 + 64 * (k / 8))), vec);
        }
      } break;
      case 1: {
        #pragma unroll
        for (int k = 0; k < 8; k += 8) {
          tessel_vec<unsigned, 4> vec;
          #pragma unroll
          for (int j = 0; j < 4; ++j) vec.v[j] = mm[k / 2 + j];
          if (row < 50 && (col + k % 8 + 64 * (k / 8)) < 264) tessel_store_vec<unsigned, 4>((unsigned*)(out1 + (row * 264 + (col + k % 8 + 64 * (k / 8)))), vec);
        }
      } break;
      case 2: {
        #pragma unroll
        for (int k = 0; k < 8; k += 8) {
          tessel_vec<unsigned, 4> vec;
          #pragma unroll
          for (int j = 0; j < 4; ++j) vec.v[j] = mm[k / 2 + j];
          if (row < 7 && (col + k % 8 + 64 * (k / 8)) < 264) tessel_store_vec<unsigned, 4>((unsigned*)(out2 + (row * 264 + (col + k % 8 + 64 * (k / 8)))), vec);
        }
      } break;
      case 3: {
        #pragma unroll
        for (int k = 0; k < 8; k += 8) {
          tessel_vec<unsigned, 4> vec;
          #pragma unroll
          for (int j = 0; j < 4; ++j) vec.v[j] = mm[k / 2 + j];
          if (row < 33 && (col + k % 8 + 64 * (k / 8)) < 264) tessel_store_vec<unsigned, 4>((unsigned*)(out3 + (row * 264 + (col + k % 8 + 64 * (k / 8)))), vec);
        }
      } break;
      case 4: {
        unsigned in10_0[4];
        #pragma unroll
        for (int k = 0; k < 8; k += 8) {
          tessel_vec<unsigned, 4> vec{};
          if (row < 300 && (col + k % 8 + 64 * (k / 8)) < 136) vec = tessel_load_vec<unsigned, 4>((const unsigned*)(in10 + (col + k % 8 + 64 * (k / 8))));
          #pragma unroll
          for (int j = 0; j < 4; ++j) in10_0[k / 2 + j] = vec.v[j];
        }
        unsigned add0[4];
        #pragma unroll
        for (int p = 0; p < 4; ++p) add0[p] = tessel_add_bf16x2(mm[p], in10_0[p]);
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
          if (row < 300 && (col + k % 8 + 64 * (k / 8)) < 136) tessel_store_vec<unsigned, 4>((unsigned*)(out4 + (row * 136 + (col + k % 8 + 64 * (k / 8)))), vec);
        }
      } break;
      case 5: {
        unsigned mul0[4];
        #pragma unroll
        for (int p = 0; p < 4; ++p) mul0[p] = tessel_mul_bf16x2(mm[p], tessel_pack_bf16(s2, s2));
        #pragma unroll
        for (int k = 0; k < 8; k += 8) {
          tessel_vec<unsigned, 4> vec;
          #pragma unroll
          for (int j = 0; j < 4; ++j) vec.v[j] = mul0[k / 2 + j];
          if (row < 129 && (col + k % 8 + 64 * (k / 8)) < 72) tessel_store_vec<unsigned, 4>((unsigned*)(out5 + (row * 72 + (col + k % 8 + 64 * (k / 8)))), vec);
        }
      } break;
    }
  }, 0);
}
