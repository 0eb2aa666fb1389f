
typedef int index_t;

extern "C" __global__ void __launch_bounds__(32) N_max_sub_exp_sum_155ca1ac(const float* __restrict__ in0, float* __restrict__ out0) {
  // 96 rows of 64: 32 threads x 2 lanes hold a row (1-element vectors)
  __shared__ float scratch_f32[32];
  const index_t row = blockIdx.x;
  const int tid = threadIdx.x;
  auto col = [tid](int k) -> index_t { return (index_t)((k / 1) * 32 + tid) * 1 + k % 1; };
  float in0_0[2];
  #pragma unroll
  for (int k = 0; k < 2; ++k) in0_0[k] = in0[(col(k) * 96 + row)];
  float acc0 = __int_as_float(0xff800000);
  #pragma unroll
  for (int k = 0; k < 2; ++k) acc0 = tessel_max(acc0, (float)in0_0[k]);
  const float max0 = tessel_block_reduce(acc0, tessel_max_op(), __int_as_float(0xff800000), scratch_f32);
  float sub0[2];
  #pragma unroll
  for (int k = 0; k < 2; ++k) sub0[k] = (in0_0[k] - max0);
  float exp0[2];
  #pragma unroll
  for (int k = 0; k < 2; ++k) exp0[k] = expf(sub0[k]);
  float acc1 = 0.0f;
  #pragma unroll
  for (int k = 0; k < 2; ++k) acc1 = acc1 + (float)exp0[k];
  const float sum0 = tessel_block_reduce(acc1, tessel_sum_op(), 0.0f, scratch_f32);
  const float log0 = logf(sum0);
  float sub1[2];
  #pragma unroll
  for (int k = 0; k < 2; ++k) sub1[k] = (sub0[k] - log0);
  #pragma unroll
  for (int k = 0; k < 2; ++k) out0[(col(k) * 96 + row)] = sub1[k];
}
