
typedef int index_t;

extern "C" __global__ void __launch_bounds__(256) E_sub_exp_div_aad47ecb(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out0) {
  // [2,40000]: 80000 elements, 8 per thread per step
  const index_t n = 80000;
  const index_t stride = (index_t)gridDim.x * 2048;
  for (index_t i = ((index_t)blockIdx.x * 256 + threadIdx.x) * 8; i < n; i += stride) {
    if (i + 8 <= n) {
      float in0_0[8];
      #pragma unroll
      for (int k = 0; k < 8; k += 8) {
        const auto vec = tessel_load_vec<float, 8>(in0 + (i + k));
        #pragma unroll
        for (int j = 0; j < 8; ++j) in0_0[k + j] = vec.v[j];
      }
      float in1_0[8];
      #pragma unroll
      for (int k = 0; k < 8; ++k) in1_0[k] = in1[((i + k) / 40000)];
      float sub0[8];
      #pragma unroll
      for (int k = 0; k < 8; ++k) sub0[k] = (in0_0[k] - in1_0[k]);
      float exp0[8];
      #pragma unroll
      for (int k = 0; k < 8; ++k) exp0[k] = expf(sub0[k]);
      float in2_0[8];
      #pragma unroll
      for (int k = 0; k < 8; ++k) in2_0[k] = in2[((i + k) / 40000)];
      float div0[8];
      #pragma unroll
      for (int k = 0; k < 8; ++k) div0[k] = (exp0[k] / in2_0[k]);
      #pragma unroll
      for (int k = 0; k < 8; k += 8) {
        tessel_vec<float, 8> vec;
        #pragma unroll
        for (int j = 0; j < 8; ++j) vec.v[j] = div0[k + j];
        tessel_store_vec<float, 8>(out0 + (i + k), vec);
      }
    }
  }
}
