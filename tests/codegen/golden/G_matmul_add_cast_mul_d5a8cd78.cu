
typedef int index_t;

extern "C" __global__ void __launch_bounds__(256) G_matmul_add_cast_mul_d5a8cd78(const bf16_t* __restrict__ in0, const bf16_t* __restrict__ in1, const bf16_t* __restrict__ in2, bf16_t* __restrict__ out0) {
  // [64 x 96] x [96 x 128], 1 batch entries
  __shared__ float As[16][68];
  __shared__ float Bs[16][68];
  const index_t batch = blockIdx.z;
  const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const bf16_t* A = in0 + (index_t)batch * 6144;
  const bf16_t* B = in1 + (index_t)batch * 12288;
  float acc[16] = {};
  for (int k0 = 0; k0 < 96; k0 += 16) {
    for (int i = threadIdx.x; i < 1024; i += 256) {
      const int r = i / 16, c = i % 16;
      As[c][r] = (m0 + r < 64 && k0 + c < 96) ? tessel_bf16_to_float(A[(index_t)(m0 + r) * 96 + k0 + c]) : 0.0f;
      const int kr = i / 64, nc = i % 64;
      Bs[kr][nc] = (k0 + kr < 96 && n0 + nc < 128) ? tessel_bf16_to_float(B[(index_t)(k0 + kr) * 128 + n0 + nc]) : 0.0f;
    }
    __syncthreads();
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float av[4], bv[4];
      #pragma unroll
      for (int i = 0; i < 4; ++i) av[i] = As[kk][ty * 4 + i];
      #pragma unroll
      for (int j = 0; j < 4; ++j) bv[j] = Bs[kk][tx * 4 + j];
      #pragma unroll
      for (int t = 0; t < 16; ++t) acc[t] += av[t / 4] * bv[t % 4];
    }
    __syncthreads();
  }
  float mm0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) mm0[k] = tessel_round_bf16(acc[k]);
  float in2_0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) in2_0[k] = ((m0 + ty * 4 + k / 4) < 64 && (n0 + tx * 4 + k % 4) < 128 ? tessel_bf16_to_float(in2[(n0 + tx * 4 + k % 4)]) : 0);
  float add0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) add0[k] = tessel_round_bf16((mm0[k] + in2_0[k]));
  float mul0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) mul0[k] = (0x1p-1f * add0[k]);
  float mul1[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) mul1[k] = (0x1.6e4e26p-5f * add0[k]);
  float mul2[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) mul2[k] = (mul1[k] * add0[k]);
  float mul3[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) mul3[k] = (mul2[k] * add0[k]);
  float add1[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) add1[k] = (add0[k] + mul3[k]);
  float mul4[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) mul4[k] = (0x1.988454p-1f * add1[k]);
  float tanh0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) tanh0[k] = tanhf(mul4[k]);
  float add2[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) add2[k] = (0x1p+0f + tanh0[k]);
  float mul5[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) mul5[k] = (mul0[k] * add2[k]);
  float cvt0[16];
  #pragma unroll
  for (int k = 0; k < 16; ++k) cvt0[k] = tessel_round_bf16(mul5[k]);
  #pragma unroll
  for (int k = 0; k < 16; ++k) if ((m0 + ty * 4 + k / 4) < 64 && (n0 + tx * 4 + k % 4) < 128) out0[((m0 + ty * 4 + k / 4) * 128 + (n0 + tx * 4 + k % 4))] = tessel_float_to_bf16(cvt0[k]);
}
