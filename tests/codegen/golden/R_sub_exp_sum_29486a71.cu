
typedef int index_t;

extern "C" __global__ void __launch_bounds__(256) R_sub_exp_sum_29486a71_stage1(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out0, float* __restrict__ ws) {
  // 2 rows of 40000, each in 2 chunks of 20000
  __shared__ float scratch_f32[32];
  const index_t row = blockIdx.x;
  const index_t begin = (index_t)blockIdx.y * 20000;
  const index_t end = min(begin + 20000, (index_t)40000);
  float acc0 = 0.0f;
  for (index_t c = begin + (index_t)threadIdx.x * 4; c < end; c += 1024) {
    float in0_0[4];
    #pragma unroll
    for (int k = 0; k < 4; k += 4) {
      tessel_vec<float, 4> vec{};
      if (c + k < end) vec = tessel_load_vec<float, 4>(in0 + (row * 40000 + (c + k)));
      #pragma unroll
      for (int j = 0; j < 4; ++j) in0_0[k + j] = vec.v[j];
    }
    const float in1_0 = in1[row];
    float sub0[4];
    #pragma unroll
    for (int k = 0; k < 4; ++k) sub0[k] = (in0_0[k] - in1_0);
    float exp0[4];
    #pragma unroll
    for (int k = 0; k < 4; ++k) exp0[k] = expf(sub0[k]);
    #pragma unroll
    for (int k = 0; k < 4; ++k) if (c + k < end) acc0 = acc0 + (float)exp0[k];
  }
  {
    const float total = tessel_block_reduce(acc0, tessel_sum_op(), 0.0f, scratch_f32);
    if (threadIdx.x == 0) ((float*)ws)[(0 * 2 + row) * 2 + blockIdx.y] = total;
  }
}

extern "C" __global__ void __launch_bounds__(256) R_sub_exp_sum_29486a71_stage2(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out0, float* __restrict__ ws) {
  __shared__ float scratch_f32[32];
  const index_t row = blockIdx.x;
  float acc0 = 0.0f;
  for (int p = threadIdx.x; p < 2; p += 256) acc0 = acc0 + ((float*)ws)[(0 * 2 + row) * 2 + p];
  const float sum0 = tessel_block_reduce(acc0, tessel_sum_op(), 0.0f, scratch_f32);
  if (threadIdx.x == 0) out0[row] = sum0;
}
