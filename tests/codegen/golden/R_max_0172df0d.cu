
typedef int index_t;

extern "C" __global__ void __launch_bounds__(256) R_max_0172df0d_stage1(const float* __restrict__ in0, float* __restrict__ out0, float* __restrict__ ws) {
  // 2 rows of 40000, each in 2 chunks of 20000
  __shared__ float scratch_f32[32];
  const index_t row = blockIdx.x;
  const index_t begin = (index_t)blockIdx.y * 20000;
  const index_t end = min(begin + 20000, (index_t)40000);
  float acc0 = __int_as_float(0xff800000);
  for (index_t c = begin + (index_t)threadIdx.x * 4; c < end; c += 1024) {
    float in0_0[4];
    #pragma unroll
    for (int k = 0; k < 4; k += 4) {
      tessel_vec<float, 4> vec{};
      if (c + k < end) vec = tessel_load_vec<float, 4>(in0 + (row * 40000 + (c + k)));
      #pragma unroll
      for (int j = 0; j < 4; ++j) in0_0[k + j] = vec.v[j];
    }
    #pragma unroll
    for (int k = 0; k < 4; ++k) if (c + k < end) acc0 = tessel_max(acc0, (float)in0_0[k]);
  }
  {
    const float total = tessel_block_reduce(acc0, tessel_max_op(), __int_as_float(0xff800000), scratch_f32);
    if (threadIdx.x == 0) ((float*)ws)[(0 * 2 + row) * 2 + blockIdx.y] = total;
  }
}

extern "C" __global__ void __launch_bounds__(256) R_max_0172df0d_stage2(const float* __restrict__ in0, float* __restrict__ out0, float* __restrict__ ws) {
  __shared__ float scratch_f32[32];
  const index_t row = blockIdx.x;
  float acc0 = __int_as_float(0xff800000);
  for (int p = threadIdx.x; p < 2; p += 256) acc0 = tessel_max(acc0, ((float*)ws)[(0 * 2 + row) * 2 + p]);
  const float max0 = tessel_block_reduce(acc0, tessel_max_op(), __int_as_float(0xff800000), scratch_f32);
  if (threadIdx.x == 0) out0[row] = max0;
}
