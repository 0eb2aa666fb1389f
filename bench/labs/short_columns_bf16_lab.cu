// Lab: softmax over the middle axis of [256, 512, 512] bf16 (131072 columns of 512, one
// element per 1 KB stride), which tessel runs at 72.8% of copy against 96.2% in f32
// (bench/RESULTS.md, thirty-third and thirty-fourth sessions). The question: is it the 64
// bytes of a row a warp reads an access (32 bf16 columns)? Variants, each a block of 1024
// threads holding whole columns in registers:
//   base:      the generated scheme by hand: 32 columns a block, a column a lane, 32 parts
//              x 16 rows (a warp reads 64 bytes of a row an access).
//   pairs:     64 columns a block, a pair of neighbouring columns a lane (one 4-byte load,
//              128 bytes of a row a warp), 32 parts x 16 rows x 2 columns (32 values).
//   two_rows:  32 columns a block as base, but a warp loads two rows at once (half-warps,
//              a pair a lane: 2 x 64 bytes an access) and swaps halves with shuffles
//              (x2: registers capped for two blocks an SM, as base).
//   pairs_cl2: pairs over a cluster of 2 blocks, each holding half of every column (16 values
//              a thread instead of 32: registers for two blocks an SM), the halves' partial
//              max and sum combined in rank order through distributed shared memory.
//   copy_*:    the reads and writes of base / pairs alone (each scheme's ceiling).
// Prints each variant's time, its share of a float4 copy of the same bytes, and the largest
// difference from base (base against a host reference over sampled columns).
// Build: bench/labs/short_columns_bf16_lab.sh; run dist/lab/short_columns_bf16_lab.
#include <cooperative_groups.h>
#include <cuda_bf16.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "lab_timing.cuh"

constexpr int B = 256, R = 512, C = 512;  // softmax over R
constexpr long long N = (long long)B * R * C;
constexpr int kParts = 32, kLanes = R / kParts;  // 16 rows a thread

using bf16 = __nv_bfloat16;

__device__ __forceinline__ long long At(int column, int r) {
  return (long long)(column / C) * R * C + (long long)r * C + column % C;
}

// The 32 parts' values of each of `W` columns combined in part order (the same in every
// thread of a column).
template <int W, typename Op>
__device__ __forceinline__ float Combine(float v, int column, float* parts, Op op) {
  __syncthreads();
  parts[threadIdx.x / W * (W + 1) + column] = v;
  __syncthreads();
  float r = parts[column];
  for (int p = 1; p < 1024 / W; ++p) r = op(r, parts[p * (W + 1) + column]);
  return r;
}

struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct Sum {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// A column's 16 values (a lane's of 32 columns) replaced by exp(v - max), and 1 / their sum
// over the column returned.
__device__ __forceinline__ float Normalize(float (&v)[kLanes], int lane, float* parts) {
  float m = v[0];
#pragma unroll
  for (int k = 1; k < kLanes; ++k) m = fmaxf(m, v[k]);
  m = Combine<32>(m, lane, parts, Max());
  float s = 0;
#pragma unroll
  for (int k = 0; k < kLanes; ++k) s += v[k] = expf(v[k] - m);
  return 1.0f / Combine<32>(s, lane, parts, Sum());
}

__global__ void __launch_bounds__(1024) base(const bf16* x, bf16* y) {
  __shared__ float parts[32 * 33];
  const int lane = threadIdx.x % 32, part = threadIdx.x / 32;
  const int column = blockIdx.x * 32 + lane;
  float v[kLanes];
#pragma unroll
  for (int k = 0; k < kLanes; ++k) v[k] = __bfloat162float(x[At(column, part + k * kParts)]);
  const float s = Normalize(v, lane, parts);
#pragma unroll
  for (int k = 0; k < kLanes; ++k) y[At(column, part + k * kParts)] = __float2bfloat16(v[k] * s);
}

// Parts combined for both columns of a pair: slots 2 * lane and 2 * lane + 1 of 64.
template <typename Op>
__device__ __forceinline__ float2 CombinePair(float2 v, int lane, float* parts, Op op) {
  __syncthreads();
  const int part = threadIdx.x / 32;
  parts[part * 65 + 2 * lane] = v.x;
  parts[part * 65 + 2 * lane + 1] = v.y;
  __syncthreads();
  float2 r{parts[2 * lane], parts[2 * lane + 1]};
  for (int p = 1; p < 32; ++p) {
    r.x = op(r.x, parts[p * 65 + 2 * lane]);
    r.y = op(r.y, parts[p * 65 + 2 * lane + 1]);
  }
  return r;
}

// A pair's `N` rows from `first` (every kParts-th) of columns `column` and `column` + 1.
template <int N>
__device__ __forceinline__ void LoadPairs(const bf16* x, int column, int first, float2 (&v)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) {
    v[k] = __bfloat1622float2(*(const __nv_bfloat162*)(x + At(column, first + k * kParts)));
  }
}

template <int N>
__device__ __forceinline__ float2 PairMax(const float2 (&v)[N]) {
  float2 m = v[0];
#pragma unroll
  for (int k = 1; k < N; ++k) m = {fmaxf(m.x, v[k].x), fmaxf(m.y, v[k].y)};
  return m;
}

// v replaced by exp(v - m); their sum returned.
template <int N>
__device__ __forceinline__ float2 PairExpSum(float2 (&v)[N], float2 m) {
  float2 s{0, 0};
#pragma unroll
  for (int k = 0; k < N; ++k) {
    v[k] = {expf(v[k].x - m.x), expf(v[k].y - m.y)};
    s = {s.x + v[k].x, s.y + v[k].y};
  }
  return s;
}

// v times the reciprocals `r`, stored where LoadPairs read.
template <int N>
__device__ __forceinline__ void StorePairs(bf16* y, int column, int first, const float2 (&v)[N],
                                           float2 r) {
#pragma unroll
  for (int k = 0; k < N; ++k) {
    *(__nv_bfloat162*)(y + At(column, first + k * kParts)) =
        __floats2bfloat162_rn(v[k].x * r.x, v[k].y * r.y);
  }
}

__global__ void __launch_bounds__(1024) pairs(const bf16* x, bf16* y) {
  __shared__ float parts[32 * 65];
  const int lane = threadIdx.x % 32, part = threadIdx.x / 32;
  const int column = blockIdx.x * 64 + 2 * lane;  // and column + 1
  float2 v[kLanes];
  LoadPairs(x, column, part, v);
  const float2 m = CombinePair(PairMax(v), lane, parts, Max());
  const float2 s = CombinePair(PairExpSum(v, m), lane, parts, Sum());
  StorePairs(y, column, part, v, {1.0f / s.x, 1.0f / s.y});
}

namespace cg = cooperative_groups;

template <int MinBlocks>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(1024, MinBlocks)
    pairs_cl2(const bf16* x, bf16* y) {
  constexpr int kHalf = kLanes / 2;  // rows a thread holds of each column
  __shared__ float parts[32 * 65];
  __shared__ float2 slots[2][32];  // this block's max, then its sum, of each pair
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = cluster.block_rank();
  const int lane = threadIdx.x % 32, part = threadIdx.x / 32;
  const int column = blockIdx.x / 2 * 64 + 2 * lane;
  const int first = rank * (R / 2) + part;
  float2 v[kHalf];
  LoadPairs(x, column, first, v);
  float2 m = CombinePair(PairMax(v), lane, parts, Max());
  if (part == 0) slots[0][lane] = m;
  cluster.sync();
  const float2 m0 = *cluster.map_shared_rank(&slots[0][lane], 0);
  const float2 m1 = *cluster.map_shared_rank(&slots[0][lane], 1);
  m = {fmaxf(m0.x, m1.x), fmaxf(m0.y, m1.y)};
  float2 s = CombinePair(PairExpSum(v, m), lane, parts, Sum());
  if (part == 0) slots[1][lane] = s;
  cluster.sync();
  const float2 s0 = *cluster.map_shared_rank(&slots[1][lane], 0);
  const float2 s1 = *cluster.map_shared_rank(&slots[1][lane], 1);
  s = {1.0f / (s0.x + s1.x), 1.0f / (s0.y + s1.y)};
  StorePairs(y, column, first, v, s);
  cluster.sync();  // no block leaves while the other may read its slots
}

// A half-warp's pair loads: lanes 0-15 read row r0's 32 columns, 16-31 row r1's; lane t then
// takes column t's value of each row from lane t / 2 and 16 + t / 2.
// MinBlocks 2: registers capped at 32 (two blocks an SM, as base).
template <int MinBlocks>
__global__ void __launch_bounds__(1024, MinBlocks) two_rows(const bf16* x, bf16* y) {
  __shared__ float parts[32 * 33];
  const int lane = threadIdx.x % 32, part = threadIdx.x / 32, half = lane / 16;
  const int column = blockIdx.x * 32 + lane;
  const int loaded = blockIdx.x * 32 + 2 * (lane % 16);  // the pair this lane reads
  float v[kLanes];
#pragma unroll
  for (int k = 0; k < kLanes; k += 2) {
    const unsigned word = *(const unsigned*)(x + At(loaded, part + (k + half) * kParts));
    const unsigned w0 = __shfl_sync(~0u, word, lane / 2), w1 = __shfl_sync(~0u, word, 16 + lane / 2);
    const int shift = (lane & 1) * 16;
    v[k] = __uint_as_float(((w0 >> shift) & 0xffffu) << 16);
    v[k + 1] = __uint_as_float(((w1 >> shift) & 0xffffu) << 16);
  }
  const float s = Normalize(v, lane, parts);
#pragma unroll
  for (int k = 0; k < kLanes; k += 2) {
    // Lane t (< 16) stores row k's pair (2t, 2t + 1), lane 16 + t row k + 1's.
    const unsigned mine = __bfloat16_as_ushort(__float2bfloat16(v[k] * s)) |
                          (unsigned)__bfloat16_as_ushort(__float2bfloat16(v[k + 1] * s)) << 16;
    const int src = 2 * (lane % 16);
    const unsigned lo = __shfl_sync(~0u, mine, src), hi = __shfl_sync(~0u, mine, src + 1);
    const unsigned word = half == 0 ? (lo & 0xffffu) | (hi << 16) : (lo >> 16) | (hi & 0xffff0000u);
    *(unsigned*)(y + At(loaded, part + (k + half) * kParts)) = word;
  }
}

// The schemes' reads and writes alone.
__global__ void __launch_bounds__(1024) copy_base(const bf16* x, bf16* y) {
  const int column = blockIdx.x * 32 + threadIdx.x % 32, part = threadIdx.x / 32;
  bf16 v[kLanes];
#pragma unroll
  for (int k = 0; k < kLanes; ++k) v[k] = x[At(column, part + k * kParts)];
#pragma unroll
  for (int k = 0; k < kLanes; ++k) y[At(column, part + k * kParts)] = v[k];
}

__global__ void __launch_bounds__(1024) copy_pairs(const bf16* x, bf16* y) {
  const int column = blockIdx.x * 64 + 2 * (threadIdx.x % 32), part = threadIdx.x / 32;
  unsigned v[kLanes];
#pragma unroll
  for (int k = 0; k < kLanes; ++k) v[k] = *(const unsigned*)(x + At(column, part + k * kParts));
#pragma unroll
  for (int k = 0; k < kLanes; ++k) *(unsigned*)(y + At(column, part + k * kParts)) = v[k];
}

float MaxDiff(const std::vector<bf16>& a, const std::vector<bf16>& b) {
  float d = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    d = fmaxf(d, fabsf(__bfloat162float(a[i]) - __bfloat162float(b[i])));
  }
  return d;
}

int main() {
  const Bf16Lab lab = bf16_lab(N);
  bf16 *x = lab.x, *ref = lab.ref, *y = lab.y;
  const float copy = lab.copy_ms;
  const float ms_base = time_it([&] { base<<<B * C / 32, 1024>>>(x, ref); });
  std::vector<bf16> hx(N), href(N), hy(N);
  CK(cudaMemcpy(hx.data(), x, N * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(href.data(), ref, N * 2, cudaMemcpyDeviceToHost));
  float worst = 0;  // base against the host, every 97th column
  for (int column = 0; column < B * C; column += 97) {
    auto at = [&](int r) { return (long long)(column / C) * R * C + (long long)r * C + column % C; };
    double m = -1e30, s = 0;
    for (int r = 0; r < R; ++r) m = fmax(m, __bfloat162float(hx[at(r)]));
    for (int r = 0; r < R; ++r) s += exp(__bfloat162float(hx[at(r)]) - m);
    for (int r = 0; r < R; ++r) {
      const double want = exp(__bfloat162float(hx[at(r)]) - m) / s;
      worst = fmaxf(worst, fabs(__bfloat162float(href[at(r)]) - want) / fmax(want, 1e-6));
    }
  }
  printf("%-12s %.4f ms %6.1f%% of copy  (host: relative error %.2e)\n", "base", ms_base,
         100 * copy / ms_base, worst);
  auto run = [&](const char* name, auto kernel, int columns) {
    CK(cudaMemset(y, 0, N * 2));
    const float ms = time_it([&] { kernel<<<B * C / columns, 1024>>>(x, y); });
    CK(cudaMemcpy(hy.data(), y, N * 2, cudaMemcpyDeviceToHost));
    printf("%-12s %.4f ms %6.1f%% of copy  (diff from base %.2e)\n", name, ms, 100 * copy / ms,
           lab_once ? 0.f : MaxDiff(href, hy));
  };
  run("pairs", pairs, 64);
  run("two_rows", two_rows<1>, 32);
  run("two_rows x2", two_rows<2>, 32);
  run("pairs_cl2", pairs_cl2<1>, 32);  // two blocks of 64 columns: a grid of columns / 32
  run("pairs_cl2 x2", pairs_cl2<2>, 32);
  run("copy_base", copy_base, 32);
  run("copy_pairs", copy_pairs, 64);
  return 0;
}
