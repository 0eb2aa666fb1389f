
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// [64 x 96] x [96 x 128], batch of 1; A K-major, B MN-major
struct gemm_config {
  static constexpr int M = 64, N = 128, K = 96, BATCH = 1;
  static constexpr bool A_MN = false, B_MN = true, F16 = false;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 128, BN = 64, BK = 64, STAGES = 8, GROUP_M = 8, SMEM = 214176;
};

extern "C" __global__ void __launch_bounds__(384, 1) G_matmul_add_cast_mul_da988566(const bf16_t* __restrict__ in0, const bf16_t* __restrict__ in1, const bf16_t* __restrict__ in2, bf16_t* __restrict__ out0, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1) {
  // The epilogue warps: outputs (row, col + k), k < 8, of matmul values mm[k].
  tessel_gemm_sm90<gemm_config>(tmap0, tmap1, [&](const float (&mm)[8], int batch, int row, int col) {
    float mm0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mm0[k] = (mm[k]);
    float in2_0[8];
    #pragma unroll
    for (int k = 0; k < 8; k += 8) {
      tessel_vec<bf16_t, 8> vec{};
      if (row < 64 && col + k < 128) vec = tessel_load_vec<bf16_t, 8>(in2 + (col + k));
      #pragma unroll
      for (int j = 0; j < 8; ++j) in2_0[k + j] = tessel_bf16_to_float(vec.v[j]);
    }
    float add0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) add0[k] = tessel_round_bf16((mm0[k] + in2_0[k]));
    float mul0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul0[k] = (0x1p-1f * add0[k]);
    float mul1[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul1[k] = (0x1.6e4e26p-5f * add0[k]);
    float mul2[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul2[k] = (mul1[k] * add0[k]);
    float mul3[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul3[k] = (mul2[k] * add0[k]);
    float add1[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) add1[k] = (add0[k] + mul3[k]);
    float mul4[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul4[k] = (0x1.988454p-1f * add1[k]);
    float tanh0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) tanh0[k] = tanhf(mul4[k]);
    float add2[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) add2[k] = (0x1p+0f + tanh0[k]);
    float mul5[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul5[k] = (mul0[k] * add2[k]);
    float cvt0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) cvt0[k] = tessel_round_bf16(mul5[k]);
    #pragma unroll
    for (int k = 0; k < 8; k += 8) {
      tessel_vec<bf16_t, 8> vec;
      #pragma unroll
      for (int j = 0; j < 8; ++j) vec.v[j] = tessel_float_to_bf16(cvt0[k + j]);
      if (row < 64 && col + k < 128) tessel_store_vec<bf16_t, 8>(out0 + (row * 128 + (col + k)), vec);
    }
  });
}
