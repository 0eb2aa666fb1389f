
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// [64 x 96] x [96 x 128], batch of 1; A K-major, B MN-major
struct gemm_config {
  static constexpr int M = 64, N = 128, K = 96, BATCH = 1;
  static constexpr bool A_MN = false, B_MN = true, F16 = false;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 128, BN = 64, BK = 64, STAGES = 8, GROUP_M = 8, SMEM = 214144;
  static constexpr bool TMA_STORE = true;
};

extern "C" __global__ void __launch_bounds__(384, 1) G_matmul_add_cast_mul_ed3aef66(const bf16_t* __restrict__ in0, const bf16_t* __restrict__ in1, const bf16_t* __restrict__ in2, bf16_t* __restrict__ out0, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1, const __grid_constant__ tessel_tensor_map tmap2) {
  tessel_gemm_sm90<gemm_config>(tmap0, tmap1, &tmap2, [&](const float (&acc)[32], int batch, int row0, int col0, unsigned char* staging) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32 % 4;
    const int row_base = row0 + 16 * warp + lane / 4, col_base = col0 + 2 * (lane % 4);
    // Register pair p holds columns (col, col + 1) of one row.
    #pragma unroll
    for (int p = 0; p < 16; ++p) {
      const int row = row_base + 8 * (p & 1), col = col_base + 8 * (p >> 1);
      float mm0[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) mm0[k] = tessel_round_bf16(acc[2 * p + k]);
      float in2_0[2];
      #pragma unroll
      for (int k = 0; k < 2; k += 2) {
        tessel_vec<bf16_t, 2> vec{};
        if (row < 64 && col + k < 128) vec = tessel_load_vec<bf16_t, 2>(in2 + (col + k));
        #pragma unroll
        for (int j = 0; j < 2; ++j) in2_0[k + j] = tessel_bf16_to_float(vec.v[j]);
      }
      float add0[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) add0[k] = tessel_round_bf16((mm0[k] + in2_0[k]));
      float mul0[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) mul0[k] = (0x1p-1f * add0[k]);
      float mul1[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) mul1[k] = (0x1.6e4e26p-5f * add0[k]);
      float mul2[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) mul2[k] = (mul1[k] * add0[k]);
      float mul3[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) mul3[k] = (mul2[k] * add0[k]);
      float add1[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) add1[k] = (add0[k] + mul3[k]);
      float mul4[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) mul4[k] = (0x1.988454p-1f * add1[k]);
      float tanh0[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) tanh0[k] = tanhf(mul4[k]);
      float add2[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) add2[k] = (0x1p+0f + tanh0[k]);
      float mul5[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) mul5[k] = (mul0[k] * add2[k]);
      float cvt0[2];
      #pragma unroll
      for (int k = 0; k < 2; ++k) cvt0[k] = tessel_round_bf16(mul5[k]);
      tessel_gemm_sm90_stage<gemm_config>(staging, row - row0, col - col0, tessel_float_to_bf16(cvt0[0]), tessel_float_to_bf16(cvt0[1]));
    }
  });
}
