
typedef int index_t;

extern "C" __global__ void __launch_bounds__(32) N_cast_max_sub_exp_032e46d9(const bf16_t* in0, bf16_t* __restrict__ out0) {
  tessel_grid_begin();
  // 64 rows of 128: 32 threads x 8 lanes hold a row (8-element vectors)
  __shared__ float scratch_f32[32];
  const index_t row = blockIdx.x;
  const int tid = threadIdx.x;
  auto col = [tid](int k) -> index_t { return (index_t)((k / 8) * 32 + tid) * 8 + k % 8; };
  float in0_0[8];
  #pragma unroll
  for (int k = 0; k < 8; k += 8) {
    tessel_vec<unsigned, 4> vec{};
    if (col(k) < 128) vec = tessel_load_vec<unsigned, 4>((const unsigned*)(in0 + (row * 128 + col(k))));
    #pragma unroll
    for (int j = 0; j < 8; ++j) in0_0[k + j] = tessel_bf16_lane(vec.v, j);
  }
  float acc0 = __int_as_float(0xff800000);
  #pragma unroll
  for (int k = 0; k < 8; ++k) if (col(k) < 128) acc0 = tessel_max(acc0, (float)in0_0[k]);
  const float max0 = tessel_block_reduce(acc0, tessel_max_op(), __int_as_float(0xff800000), scratch_f32);
  float sub0[8];
  #pragma unroll
  for (int k = 0; k < 8; ++k) sub0[k] = (in0_0[k] - max0);
  float exp0[8];
  #pragma unroll
  for (int k = 0; k < 8; ++k) exp0[k] = tessel_exp_term(sub0[k]);
  float acc1 = 0.0f;
  #pragma unroll
  for (int k = 0; k < 8; ++k) if (col(k) < 128) acc1 = acc1 + (float)exp0[k];
  const float sum0 = tessel_block_reduce(acc1, tessel_sum_op(), 0.0f, scratch_f32);
  const float rcp0 = __frcp_rn(sum0);
  float div0[8];
  #pragma unroll
  for (int k = 0; k < 8; ++k) div0[k] = (exp0[k] * rcp0);
  float cvt0[8];
  #pragma unroll
  for (int k = 0; k < 8; ++k) cvt0[k] = tessel_round_bf16(div0[k]);
  #pragma unroll
  for (int k = 0; k < 8; k += 8) {
    tessel_vec<bf16_t, 8> vec;
    #pragma unroll
    for (int j = 0; j < 8; ++j) vec.v[j] = tessel_float_to_bf16(cvt0[k + j]);
    if (col(k) < 128) tessel_store_vec<bf16_t, 8>(out0 + (row * 128 + col(k)), vec);
  }
}
