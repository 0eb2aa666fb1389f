
typedef int index_t;

extern "C" __global__ void __launch_bounds__(128) N_max_sub_exp_sum_4250ce9c(const float* in0, float* __restrict__ out0) {
  tessel_grid_begin();
  // 96 columns of 64: 32 a block; 4 threads x 16 lanes hold a column
  __shared__ float parts[132];
  const int column = threadIdx.x % 32, part = threadIdx.x / 32;
  const index_t first = (index_t)blockIdx.x * 32 + column;
  const bool valid = first < 96;
  const index_t row = valid ? first : 95;
  auto col = [part](int k) -> index_t { return part + (index_t)k * 4; };
  float in0_0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) in0_0[k] = in0[(col(k) * 96 + row)];
  float acc0 = __int_as_float(0xff800000);
  #pragma unroll
  for (int k = 0; k < 16; ++k) acc0 = tessel_max(acc0, (float)in0_0[k]);
  ((float*)parts)[threadIdx.x / 32 * 33 + threadIdx.x % 32] = acc0;
  __syncthreads();
  acc0 = ((float*)parts)[column];
  for (int p = 1; p < 4; ++p) acc0 = tessel_max(acc0, ((float*)parts)[p * 33 + column]);
  const float max0 = acc0;
  float sub0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) sub0[k] = (in0_0[k] - max0);
  float exp0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) exp0[k] = tessel_exp_term(sub0[k]);
  float acc1 = 0.0f;
  #pragma unroll
  for (int k = 0; k < 16; ++k) acc1 = acc1 + (float)exp0[k];
  __syncthreads();  // the last accumulator's parts are read
  ((float*)parts)[threadIdx.x / 32 * 33 + threadIdx.x % 32] = acc1;
  __syncthreads();
  acc1 = ((float*)parts)[column];
  for (int p = 1; p < 4; ++p) acc1 = acc1 + ((float*)parts)[p * 33 + column];
  const float sum0 = acc1;
  const float log0 = logf(sum0);
  float sub1[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) sub1[k] = (sub0[k] - log0);
  #pragma unroll
  for (int k = 0; k < 16; ++k) if (valid) out0[(col(k) * 96 + row)] = sub1[k];
}
