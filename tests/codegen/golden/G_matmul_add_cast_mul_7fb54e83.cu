
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// [64 x 96] x [96 x 128], batch of 1; A K-major, B MN-major
struct gemm_config {
  static constexpr int M = 64, N = 128, K = 96, BATCH = 1;
  static constexpr bool A_MN = false, B_MN = true, F16 = false;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 128, BN = 64, BK = 64, STAGES = 8, GROUP_M = 8, SMEM = 214176;
  static constexpr bool TMA_STORE = false;
};

extern "C" __global__ void __launch_bounds__(384, 1) G_matmul_add_cast_mul_7fb54e83(const bf16_t* __restrict__ in0, const bf16_t* __restrict__ in1, const bf16_t* __restrict__ in2, bf16_t* __restrict__ out0, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1) {
  // The epilogue warps: outputs (row, col + 64 (k / 8) + k % 8), k < 8, from the matmul's values mm[k].
  tessel_gemm_sm90<gemm_config>(tmap0, tmap1, nullptr, [&](const float (&mm)[8], int batch, int row, int col) {
    float mm0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mm0[k] = (mm[k]);
    float in2_0[8];
    #pragma unroll
    for (int k = 0; k < 8; k += 8) {
      tessel_vec<bf16_t, 8> vec{};
      if (row < 64) vec = tessel_load_vec<bf16_t, 8>(in2 + (col + k % 8 + 64 * (k / 8)));
      #pragma unroll
      for (int j = 0; j < 8; ++j) in2_0[k + j] = tessel_bf16_to_float(vec.v[j]);
    }
    float add0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) add0[k] = tessel_round_bf16((mm0[k] + in2_0[k]));
    float mul0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul0[k] = (0x1.6e4e26p-5f * add0[k]);
    float mul1[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul1[k] = (mul0[k] * add0[k]);
    float mul2[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul2[k] = (mul1[k] * add0[k]);
    float add1[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) add1[k] = (add0[k] + mul2[k]);
    float mul3[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul3[k] = (0x1.988454p+0f * add1[k]);
    float sigmoid0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) sigmoid0[k] = tessel_rcp(1.0f + expf(-mul3[k]));
    float mul4[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) mul4[k] = (add0[k] * sigmoid0[k]);
    float cvt0[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k) cvt0[k] = tessel_round_bf16(mul4[k]);
    #pragma unroll
    for (int k = 0; k < 8; k += 8) {
      tessel_vec<bf16_t, 8> vec;
      #pragma unroll
      for (int j = 0; j < 8; ++j) vec.v[j] = tessel_float_to_bf16(cvt0[k + j]);
      if (row < 64) tessel_store_vec<bf16_t, 8>(out0 + (row * 128 + (col + k % 8 + 64 * (k / 8))), vec);
    }
  });
}
