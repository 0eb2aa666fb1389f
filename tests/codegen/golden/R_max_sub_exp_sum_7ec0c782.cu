
typedef int index_t;

extern "C" __global__ void __launch_bounds__(256) R_max_sub_exp_sum_7ec0c782_stage1(const float* __restrict__ in0, float* __restrict__ out0, float* __restrict__ out1, float* __restrict__ ws) {
  // 2 rows of 40000, each in 2 chunks of 20000
  __shared__ float scratch_f32[32];
  __shared__ float scratch_pair_m[32], scratch_pair_s[32];
  const index_t row = blockIdx.x;
  const index_t begin = (index_t)blockIdx.y * 20000;
  const index_t end = min(begin + 20000, (index_t)40000);
  float acc1 = 0.0f;
  auto shift0 = [&](float m) -> float {
    return m;
  };
  auto combine0 = [&](float& m, float& s, float m2, float s2) {
    const float m1 = tessel_max(m, m2), h1 = shift0(m1);
    s = (s == 0 ? s : s * expf(shift0(m) - h1)) + (s2 == 0 ? s2 : s2 * expf(shift0(m2) - h1));
    m = m1;
  };
  float pm0 = __int_as_float(0xff800000), ph0 = shift0(pm0);
  float phl0 = ph0 * 1.4426950408889634f;
  index_t c = begin + (index_t)threadIdx.x * 4;
  auto col = [&](int k) -> index_t { return c + (k / 4) * 1024 + k % 4; };
  for (; c + 1028 <= end; c += 2048) {
    float in0_0[8];
    #pragma unroll
    for (int k = 0; k < 8; k += 4) {
      const auto vec = tessel_load_vec<float, 4>(in0 + (row * 40000 + col(k)));
      #pragma unroll
      for (int j = 0; j < 4; ++j) in0_0[k + j] = vec.v[j];
    }
    {
      float grown = pm0;
      #pragma unroll
      for (int k = 0; k < 8; ++k) grown = tessel_max(grown, in0_0[k]);
      if (grown != pm0) {
        const float shifted = shift0(grown);
        if (acc1 != 0) acc1 *= expf(ph0 - shifted);
        pm0 = grown;
        ph0 = shifted;
        phl0 = shifted * 1.4426950408889634f;
      }
      #pragma unroll
      for (int k = 0; k < 8; ++k) if (in0_0[k] != __int_as_float(0xff800000)) acc1 += tessel_exp_shifted(in0_0[k], phl0);
    }
  }
  if (c < end) {
    float in0_0[8];
    #pragma unroll
    for (int k = 0; k < 8; k += 4) {
      tessel_vec<float, 4> vec{};
      if (col(k) < end) vec = tessel_load_vec<float, 4>(in0 + (row * 40000 + col(k)));
      #pragma unroll
      for (int j = 0; j < 4; ++j) in0_0[k + j] = vec.v[j];
    }
    {
      float grown = pm0;
      #pragma unroll
      for (int k = 0; k < 8; ++k) if (col(k) < end) grown = tessel_max(grown, in0_0[k]);
      if (grown != pm0) {
        const float shifted = shift0(grown);
        if (acc1 != 0) acc1 *= expf(ph0 - shifted);
        pm0 = grown;
        ph0 = shifted;
        phl0 = shifted * 1.4426950408889634f;
      }
      #pragma unroll
      for (int k = 0; k < 8; ++k) if (col(k) < end) if (in0_0[k] != __int_as_float(0xff800000)) acc1 += tessel_exp_shifted(in0_0[k], phl0);
    }
  }
  {
    tessel_block_reduce_pair(pm0, acc1, combine0, __int_as_float(0xff800000), scratch_pair_m, scratch_pair_s);
    if (threadIdx.x == 0) {
      ((float*)ws)[(0 * 2 + row) * 2 + blockIdx.y] = pm0;
      ((float*)ws)[(1 * 2 + row) * 2 + blockIdx.y] = acc1;
    }
  }
}

extern "C" __global__ void __launch_bounds__(256) R_max_sub_exp_sum_7ec0c782_stage2(const float* __restrict__ in0, float* __restrict__ out0, float* __restrict__ out1, float* __restrict__ ws) {
  __shared__ float scratch_f32[32];
  __shared__ float scratch_pair_m[32], scratch_pair_s[32];
  const index_t row = blockIdx.x;
  auto shift0 = [&](float m) -> float {
    return m;
  };
  auto combine0 = [&](float& m, float& s, float m2, float s2) {
    const float m1 = tessel_max(m, m2), h1 = shift0(m1);
    s = (s == 0 ? s : s * expf(shift0(m) - h1)) + (s2 == 0 ? s2 : s2 * expf(shift0(m2) - h1));
    m = m1;
  };
  float acc1 = 0.0f;
  float pm0 = __int_as_float(0xff800000);
  for (int p = threadIdx.x; p < 2; p += 256) combine0(pm0, acc1, ((float*)ws)[(0 * 2 + row) * 2 + p], ((float*)ws)[(1 * 2 + row) * 2 + p]);
  tessel_block_reduce_pair(pm0, acc1, combine0, __int_as_float(0xff800000), scratch_pair_m, scratch_pair_s);
  const float max0 = pm0;
  const float sum0 = (shift0(pm0) == __int_as_float(0xff800000) ? __int_as_float(0x7fc00000) : acc1);
  if (threadIdx.x == 0) out0[row] = max0;
  if (threadIdx.x == 0) out1[row] = sum0;
}
