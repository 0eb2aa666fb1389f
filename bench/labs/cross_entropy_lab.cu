// Lab: cross-entropy over 4096 rows of 32000 bf16 classes (where/eq form), the streaming
// reduction tessel generates today (`BM_CrossEntropy/1`'s first kernel, launched as tessel
// launches it) against variants of its loop:
//   ce<T, U, PF, ONEHOT, VG>: T threads a row, U 8-element vectors a thread a step; PF: the
//     next step's vectors loaded before this step's arithmetic; ONEHOT: the where/eq sum (else
//     the picked logit is one load, as a gather would read it); VG: the last, partial step
//     guarded a vector at a time (the generated kernel guards each element).
//   read<T, U>: the loads and a plain sum alone (the access pattern's ceiling).
// Prints each variant's time, its read bandwidth against a float4 copy (bytes read + written)
// of the same run, and whether its outputs match the generated kernel's bit for bit.
#include "ce_base.cuh"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "ce_generated.cuh"
#include "lab_timing.cuh"

constexpr int kRows = 4096, kCols = 32000;


__global__ void fill(bf16_t* x, long long* t, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)(i * 2654435761ull >> 7);
    x[i] = tessel_float_to_bf16(((h % 20001) - 10000) * 3e-4f);
    if (i < kRows) t[i] = i * 7919 % kCols;
  }
}

template <int T, int U, bool PF, bool ONEHOT, bool VG>
__global__ void __launch_bounds__(T) ce(const bf16_t* in0, const long long* in1, bf16_t* out0, float s0, float s1) {
  __shared__ float scratch_f32[32];
  __shared__ float scratch_pair_m[32], scratch_pair_s[32];
  const int row = blockIdx.x;
  const int end = kCols;
  float acc1 = 0.0f, acc2 = 0.0f;
  auto shift0 = [&](float m) -> float { return isfinite(m) ? m : s0; };
  auto combine0 = [&](float& m, float& s, float m2, float s2) {
    const float m1 = tessel_max(m, m2), h1 = shift0(m1);
    s = (s == 0 ? s : s * expf(shift0(m) - h1)) + (s2 == 0 ? s2 : s2 * expf(shift0(m2) - h1));
    m = m1;
  };
  float pm0 = __int_as_float(0xff800000), ph0 = shift0(pm0);
  int c = threadIdx.x * 8;
  auto col = [&](int k) -> int { return c + (k / 8) * (T * 8) + k % 8; };
  const long long in1_0 = in1[row];
  constexpr int K = 8 * U;
  // guard: 0 none, 1 a vector at a time, 2 each lane (as generated before a6463ac)
  auto process = [&](const tessel_vec<unsigned, 4> (&vec)[U], int guard) {
    auto in = [&](int k) { return guard == 0 || col(guard == 1 ? k & ~7 : k) < end; };
    float x[K];
#pragma unroll
    for (int k = 0; k < K; ++k) x[k] = tessel_bf16_lane(vec[k / 8].v, k % 8);
    float grown = pm0;
#pragma unroll
    for (int k = 0; k < K; ++k) if (in(k)) grown = tessel_max(grown, x[k]);
    if (grown != pm0) {
      const float shifted = shift0(grown);
      if (acc1 != 0) acc1 *= expf(ph0 - shifted);
      pm0 = grown;
      ph0 = shifted;
    }
    if (pm0 != __int_as_float(0xff800000)) {
#pragma unroll
      for (int k = 0; k < K; ++k) if (in(k)) acc1 += tessel_exp_shifted(x[k], ph0);
    }
    if (ONEHOT) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const bool eq0 = ((unsigned long long)in1_0 >> 32 == 0) & ((unsigned)col(k) == (unsigned)in1_0);
        if (in(k)) acc2 = acc2 + (eq0 ? x[k] : s1);
      }
    }
  };
  auto load = [&](tessel_vec<unsigned, 4> (&vec)[U], bool guard) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      vec[u] = tessel_vec<unsigned, 4>{};
      if (!guard || col(8 * u) < end) vec[u] = tessel_load_vec<unsigned, 4>((const unsigned*)(in0 + ((long long)row * kCols + col(8 * u))));
    }
  };
  constexpr int kStep = T * K;
  const int full_end = end - (U - 1) * T * 8 - 8;  // c <= full_end: the whole step in range
  tessel_vec<unsigned, 4> vec[U];
  if (PF) {
    if (c <= full_end) load(vec, false);
    for (; c <= full_end; c += kStep) {
      tessel_vec<unsigned, 4> next[U];
      const bool more = c + kStep <= full_end;
      if (more) {
        c += kStep;
        load(next, false);
        c -= kStep;
      }
      process(vec, 0);
#pragma unroll
      for (int u = 0; u < U; ++u) vec[u] = next[u];
    }
  } else {
    for (; c <= full_end; c += kStep) {
      load(vec, false);
      process(vec, 0);
    }
  }
  if (c < end) {
    load(vec, true);
    process(vec, VG ? 1 : 2);
  }
  if (!ONEHOT && threadIdx.x == 0 && (unsigned long long)in1_0 < (unsigned long long)end) {
    acc2 = 0.0f + tessel_bf16_to_float(in0[(long long)row * kCols + in1_0]);
  }
  tessel_block_reduce_pair(pm0, acc1, combine0, __int_as_float(0xff800000), scratch_pair_m, scratch_pair_s);
  const float max0 = pm0;
  const float sum0 = (shift0(pm0) == __int_as_float(0xff800000) ? __int_as_float(0x7fc00000) : acc1);
  const float sum1 = tessel_round_bf16(tessel_block_reduce(acc2, tessel_sum_op(), 0.0f, scratch_f32));
  const float add0 = logf(sum0) + (isfinite(max0) ? max0 : s0);
  const float sub0 = tessel_round_bf16((tessel_round_bf16(add0) - sum1));
  if (threadIdx.x == 0) out0[row] = tessel_float_to_bf16(sub0);
}

template <int T, int U>
__global__ void __launch_bounds__(T) read(const bf16_t* in0, const long long*, bf16_t* out0, float, float) {
  __shared__ float scratch_f32[32];
  float acc = 0.0f;
  for (int c = threadIdx.x * 8; c < kCols; c += T * 8) {
    const auto v = tessel_load_vec<unsigned, 4>((const unsigned*)(in0 + ((long long)blockIdx.x * kCols + c)));
#pragma unroll
    for (int j = 0; j < 8; ++j) acc += tessel_bf16_lane(v.v, j);
  }
  acc = tessel_block_reduce(acc, tessel_sum_op(), 0.0f, scratch_f32);
  if (threadIdx.x == 0) out0[blockIdx.x] = tessel_float_to_bf16(acc);
}

using Kernel = void (*)(const bf16_t*, const long long*, bf16_t*, float, float);

int main() {
  lab_once = getenv("LAB_ONCE") != nullptr;
  const long long n = (long long)kRows * kCols;
  bf16_t *x, *ref, *y;
  long long* t;
  float* big;
  CK(cudaMalloc(&x, n * 2)); CK(cudaMalloc(&t, kRows * 8));
  CK(cudaMalloc(&ref, kRows * 2)); CK(cudaMalloc(&y, kRows * 2));
  CK(cudaMalloc(&big, 2ll << 30));  // 1 GB read, 1 GB written
  fill<<<1024, 256>>>(x, t, n);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long long copy_n = 1ll << 26;  // float4s: 1 GB read + written
  const float copy = time_it([&] { copy4<<<sms * 8, 512>>>((const float4*)big, (float4*)big + copy_n, copy_n); }, 5);
  const double copy_gbps = 2.0 * copy_n * 16 / copy / 1e6;
  printf("copy: %.1f GB/s\n", copy_gbps);
  const float s0 = 0.0f, s1 = 0.0f;
  const float gen = time_it([&] { GENERATED<<<kRows, 256>>>(x, t, ref, s0, s1); }, 5);
  printf("%-34s %.4f ms %6.1f%% of copy\n", "generated", gen, 100 * n * 2 / gen / 1e6 / copy_gbps);
  std::vector<unsigned short> hr(kRows), hy(kRows);
  CK(cudaMemcpy(hr.data(), ref, kRows * 2, cudaMemcpyDeviceToHost));
  auto run = [&](const char* name, Kernel k, int threads) {
    CK(cudaMemset(y, 0, kRows * 2));
    const float ms = time_it([&] { k<<<kRows, threads>>>(x, t, y, s0, s1); }, 5);
    CK(cudaMemcpy(hy.data(), y, kRows * 2, cudaMemcpyDeviceToHost));
    int differ = 0;
    for (int i = 0; i < kRows; ++i) differ += hr[i] != hy[i];
    printf("%-34s %.4f ms %6.1f%% of copy  (%d rows differ)\n", name, ms, 100 * n * 2 / ms / 1e6 / copy_gbps, differ);
  };
  run("ce<256,2> (generated's loop)", ce<256, 2, false, true, false>, 256);
  run("ce<256,2> vector guard", ce<256, 2, false, true, true>, 256);
  run("ce<256,2> prefetch", ce<256, 2, true, true, false>, 256);
  run("ce<256,2> prefetch vguard", ce<256, 2, true, true, true>, 256);
  run("ce<256,4> vguard", ce<256, 4, false, true, true>, 256);
  run("ce<256,1> vguard", ce<256, 1, false, true, true>, 256);
  run("ce<256,1> prefetch vguard", ce<256, 1, true, true, true>, 256);
  run("ce<512,2> vguard", ce<512, 2, false, true, true>, 512);
  run("ce<512,1> prefetch vguard", ce<512, 1, true, true, true>, 512);
  run("ce<128,2> vguard", ce<128, 2, false, true, true>, 128);
  run("ce<256,2> no one-hot", ce<256, 2, false, false, false>, 256);
  run("ce<256,2> no one-hot vguard", ce<256, 2, false, false, true>, 256);
  run("ce<256,2> no one-hot prefetch vg", ce<256, 2, true, false, true>, 256);
  run("read<256,1>", read<256, 1>, 256);
  run("read<512,1>", read<512, 1>, 512);
  run("read<1024,1>", read<1024, 1>, 1024);
  return 0;
}
