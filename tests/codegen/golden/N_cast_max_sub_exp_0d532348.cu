
typedef int index_t;

extern "C" __global__ void __launch_bounds__(32) N_cast_max_sub_exp_0d532348(const bf16_t* in0, const float* in1, const f16_t* in2, bf16_t* __restrict__ out0, bf16_t* __restrict__ out1, f16_t* __restrict__ out2, float s0, float s1) {
  tessel_grid_begin();
  // 64 rows of 96: 32 threads x 4 lanes hold a row (4-element vectors)
  __shared__ float scratch_f32[32];
  const index_t row = blockIdx.x;
  const int tid = threadIdx.x;
  auto col = [tid](int k) -> index_t { return (index_t)((k / 4) * 32 + tid) * 4 + k % 4; };
  float in0_0[4];
  #pragma unroll
  for (int k = 0; k < 4; k += 4) {
    tessel_vec<unsigned, 2> vec{};
    if (col(k) < 96) vec = tessel_load_vec<unsigned, 2>((const unsigned*)(in0 + (row * 96 + col(k))));
    #pragma unroll
    for (int j = 0; j < 4; ++j) in0_0[k + j] = tessel_bf16_lane(vec.v, j);
  }
  float acc0 = __int_as_float(0xff800000);
  #pragma unroll
  for (int k = 0; k < 4; ++k) if (col(k) < 96) acc0 = tessel_max(acc0, (float)in0_0[k]);
  const float max0 = tessel_block_reduce(acc0, tessel_max_op(), __int_as_float(0xff800000), scratch_f32);
  float sub0[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) sub0[k] = (in0_0[k] - max0);
  float exp0[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) exp0[k] = tessel_exp_term(sub0[k]);
  float acc1 = 0.0f;
  #pragma unroll
  for (int k = 0; k < 4; ++k) if (col(k) < 96) acc1 = acc1 + (float)exp0[k];
  const float sum0 = tessel_block_reduce(acc1, tessel_sum_op(), 0.0f, scratch_f32);
  float acc2 = 0.0f;
  #pragma unroll
  for (int k = 0; k < 4; ++k) if (col(k) < 96) acc2 = acc2 + (float)in0_0[k];
  const float mean0 = (tessel_block_reduce(acc2, tessel_sum_op(), 0.0f, scratch_f32) / 96.0f);
  float sub1[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) sub1[k] = (in0_0[k] - mean0);
  float mul0[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) mul0[k] = (sub1[k] * sub1[k]);
  float acc3 = 0.0f;
  #pragma unroll
  for (int k = 0; k < 4; ++k) if (col(k) < 96) acc3 = acc3 + (float)mul0[k];
  const float mean1 = (tessel_block_reduce(acc3, tessel_sum_op(), 0.0f, scratch_f32) / 96.0f);
  float in2_0[4];
  #pragma unroll
  for (int k = 0; k < 4; k += 4) {
    tessel_vec<unsigned, 2> vec{};
    if (col(k) < 96) vec = tessel_load_vec<unsigned, 2>((const unsigned*)(in2 + (row * 96 + col(k))));
    #pragma unroll
    for (int j = 0; j < 4; ++j) in2_0[k + j] = tessel_f16_lane(vec.v, j);
  }
  float mul1[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) mul1[k] = (in2_0[k] * in2_0[k]);
  float acc4 = 0.0f;
  #pragma unroll
  for (int k = 0; k < 4; ++k) if (col(k) < 96) acc4 = acc4 + (float)mul1[k];
  const float mean2 = (tessel_block_reduce(acc4, tessel_sum_op(), 0.0f, scratch_f32) / 96.0f);
  const float rcp0 = __frcp_rn(sum0);
  float div0[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) div0[k] = (exp0[k] * rcp0);
  float cvt0[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) cvt0[k] = tessel_round_bf16(div0[k]);
  #pragma unroll
  for (int k = 0; k < 4; k += 4) {
    tessel_vec<bf16_t, 4> vec;
    #pragma unroll
    for (int j = 0; j < 4; ++j) vec.v[j] = tessel_float_to_bf16(cvt0[k + j]);
    if (col(k) < 96) tessel_store_vec<bf16_t, 4>(out0 + (row * 96 + col(k)), vec);
  }
  const float add0 = (mean1 + s0);
  const float rsqrt0 = __frsqrt_rn(add0);
  float mul2[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) mul2[k] = (sub1[k] * rsqrt0);
  float in1_0[4];
  #pragma unroll
  for (int k = 0; k < 4; k += 4) {
    tessel_vec<float, 4> vec{};
    if (col(k) < 96) vec = tessel_load_vec<float, 4>(in1 + col(k));
    #pragma unroll
    for (int j = 0; j < 4; ++j) in1_0[k + j] = vec.v[j];
  }
  float mul3[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) mul3[k] = (mul2[k] * in1_0[k]);
  float add1[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) add1[k] = (mul3[k] + in1_0[k]);
  float cvt1[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) cvt1[k] = tessel_round_bf16(add1[k]);
  #pragma unroll
  for (int k = 0; k < 4; k += 4) {
    tessel_vec<bf16_t, 4> vec;
    #pragma unroll
    for (int j = 0; j < 4; ++j) vec.v[j] = tessel_float_to_bf16(cvt1[k + j]);
    if (col(k) < 96) tessel_store_vec<bf16_t, 4>(out1 + (row * 96 + col(k)), vec);
  }
  const float add2 = (mean2 + s1);
  const float rsqrt1 = __frsqrt_rn(add2);
  float mul4[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) mul4[k] = (in2_0[k] * rsqrt1);
  float mul5[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) mul5[k] = (mul4[k] * in1_0[k]);
  float cvt2[4];
  #pragma unroll
  for (int k = 0; k < 4; ++k) cvt2[k] = tessel_round_f16(mul5[k]);
  #pragma unroll
  for (int k = 0; k < 4; k += 4) {
    tessel_vec<f16_t, 4> vec;
    #pragma unroll
    for (int j = 0; j < 4; ++j) vec.v[j] = tessel_float_to_f16(cvt2[k + j]);
    if (col(k) < 96) tessel_store_vec<f16_t, 4>(out2 + (row * 96 + col(k)), vec);
  }
}
