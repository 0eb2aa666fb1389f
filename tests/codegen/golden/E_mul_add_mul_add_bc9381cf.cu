
typedef int index_t;

extern "C" __global__ void __launch_bounds__(256) E_mul_add_mul_add_bc9381cf(const float* in0, float* __restrict__ out0, float s0, float s1, float s2, float s3) {
  tessel_grid_begin();
  // [1048576]: 1048576 elements, 4 per thread per step
  const index_t n = 1048576;
  const index_t stride = (index_t)gridDim.x * 1024;
  for (index_t i = ((index_t)blockIdx.x * 256 + threadIdx.x) * 4; i < n; i += stride) {
    if (i + 4 <= n) {
      float in0_0[4];
      #pragma unroll
      for (int k = 0; k < 4; k += 4) {
        const auto vec = tessel_load_vec<float, 4>(in0 + (i + k));
        #pragma unroll
        for (int j = 0; j < 4; ++j) in0_0[k + j] = vec.v[j];
      }
      float mul0[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) mul0[k] = (in0_0[k] * s0);
      float add0[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) add0[k] = (mul0[k] + s1);
      float mul1[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) mul1[k] = (s3 * add0[k]);
      float mul2[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) mul2[k] = (mul1[k] * add0[k]);
      float mul3[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) mul3[k] = (mul2[k] * add0[k]);
      float add1[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) add1[k] = (add0[k] + mul3[k]);
      float mul4[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) mul4[k] = (s2 * add1[k]);
      float sigmoid0[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) sigmoid0[k] = tessel_rcp(1.0f + expf(-mul4[k]));
      float mul5[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) mul5[k] = (add0[k] * sigmoid0[k]);
      float sigmoid1[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) sigmoid1[k] = tessel_rcp(1.0f + expf(-in0_0[k]));
      float mul6[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) mul6[k] = (mul5[k] * sigmoid1[k]);
      float add2[4];
      #pragma unroll
      for (int k = 0; k < 4; ++k) add2[k] = (mul6[k] + in0_0[k]);
      #pragma unroll
      for (int k = 0; k < 4; k += 4) {
        tessel_vec<float, 4> vec;
        #pragma unroll
        for (int j = 0; j < 4; ++j) vec.v[j] = add2[k + j];
        tessel_store_vec<float, 4>(out0 + (i + k), vec);
      }
    }
  }
}
