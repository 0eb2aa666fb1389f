// Lab: softmax over the leading axis of 16384 x 8192 f32 (columns of 16384), against the
// kernel tessel generates today (`inspect column_softmax --repro`, launched as it prints).
// Variants:
//   held<W, T, L, C, P>: 8bff2e6's scheme (each column's values held in registers over a
//     cluster) with W columns a block (W * 4 bytes of each row),
//     T threads of L lanes, C blocks a cluster; P: each block first prefetches into L2 the
//     part of the block one wave later.
//   held<..., NOCL>: without the cluster's combine (wrong values: times the rest alone);
//     SPLIT: the last cluster barrier split into arrive (after the last remote read) and wait.
//   stride_copy<W, T, L, C>: held's reads and writes alone (the access pattern's ceiling).
//   hybrid<W, T, LR, LS, C, WB>: LR lanes in registers and LS in shared memory, two blocks an SM.
//   twopass<W, T, C>: each block streams its part twice, online max and sum first, then the
//     normalized values, the second read meant to hit L2 (W * 4 bytes of each row).
//   grouped<W, T, LR, LS, G>: hybrid's part without a cluster, G blocks meeting through global
//     memory (any free slot of any SM).
// LAB_ONCE=1 launches each once (for Nsight Compute). Results: bench/RESULTS.md, thirtieth
// session.
// Prints each variant's time, its share of a float4 copy of the same bytes, and the largest
// difference from the generated kernel's output.
#include "column_base.cuh"
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "column_generated.cuh"
#include "lab_timing.cuh"
namespace cg = cooperative_groups;

// LAB_SHORT: columns of 256 (x [256, 262144], as softmax over the leading axis of
// [256, 512, 512]), held by one block each: `held` with cluster 1 against the generated
// scheme (held<32, 1024, 8, 1>).
#ifdef LAB_SHORT
constexpr int R = 256, C = 262144;
#else
constexpr int R = 16384, C = 8192;
#endif


// Block-wide then cluster-wide combine of one value per column (W columns).
template <int W, int T, int CL, typename Op>
__device__ __forceinline__ float combine(float v, Op op, float* parts, float* slots) {
  for (int o = W; o < 32; o *= 2) v = op(v, __shfl_xor_sync(~0u, v, o));
  __syncthreads();
  if (threadIdx.x % 32 < W) parts[threadIdx.x / 32 * W + threadIdx.x % 32] = v;
  __syncthreads();
  const int col = threadIdx.x % W;
  v = parts[col];
  for (int p = 1; p < T / 32; ++p) v = op(v, parts[p * W + col]);
  if (CL > 1) {
    cg::cluster_group cl = cg::this_cluster();
    if (threadIdx.x < W) slots[threadIdx.x] = v;
    cl.sync();
    if (threadIdx.x < W) {
      float r = *cl.map_shared_rank(slots + threadIdx.x, 0);
#pragma unroll
      for (int b = 1; b < CL; ++b) r = op(r, *cl.map_shared_rank(slots + threadIdx.x, b));
      slots[W + threadIdx.x] = r;
    }
    __syncthreads();
    v = slots[W + col];
  }
  return v;
}
struct MaxOp { __device__ float operator()(float a, float b) const { return fmaxf(a, b); } };
struct SumOp { __device__ float operator()(float a, float b) const { return a + b; } };

// NOCL: the cluster's blocks do not combine (wrong results: times the rest alone).
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

// SPLIT: the last barrier (no block leaves while another may read its slots) split: arrive
// once the block's remote reads are done, wait before leaving.
template <int W, int T, int L, int CL, bool PF, bool NOCL = false, bool SPLIT = false>
__global__ void __launch_bounds__(T) held(const float* __restrict__ x, float* __restrict__ y, int wave) {
  constexpr int P = T / W, PART = P * L;
  static_assert(PART * CL <= R, "a cluster holds at most a column");
  constexpr int CC = NOCL ? 1 : CL;
  __shared__ float parts[T / 32 * W];
  __shared__ float slots[2 * W], slots2[2 * W];
  tessel_grid_begin();
  const int col = threadIdx.x % W, part = threadIdx.x / W;
  const long long c = (long long)(blockIdx.x / CL) * W + col;
  const long long start = (long long)(blockIdx.x % CL) * PART;
  float v[L];
  const float* px = x + (start + part) * C + c;
#pragma unroll
  for (int k = 0; k < L; ++k) v[k] = px[k * (P * C)];
  if (PF && col % 8 == 0 && blockIdx.x + wave < gridDim.x) {
    const int nb = blockIdx.x + wave;
    const long long nc = (long long)(nb / CL) * W + col, ns = (long long)(nb % CL) * PART;
#pragma unroll
    for (int k = 0; k < L; ++k)
      asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(x + (ns + part + (long long)k * P) * C + nc));
  }
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < L; ++k) m = fmaxf(m, v[k]);
  m = combine<W, T, CC>(m, MaxOp(), parts, slots);
  float s = 0;
#pragma unroll
  for (int k = 0; k < L; ++k) { v[k] = expf(v[k] - m); s += v[k]; }
  s = combine<W, T, CC>(s, SumOp(), parts, slots2);
  if (SPLIT && CC > 1) cluster_arrive();
  const float r = __frcp_rn(s);
  float* py = y + (start + part) * C + c;
#pragma unroll
  for (int k = 0; k < L; ++k) py[k * (P * C)] = v[k] * r;
  if (CC > 1) {
    if (SPLIT) cluster_wait();
    else cg::this_cluster().sync();
  }
}

// The memory traffic of `held` alone: each block copies its part of W columns.
template <int W, int T, int L, int CL>
__global__ void __launch_bounds__(T) stride_copy(const float* __restrict__ x, float* __restrict__ y, int) {
  constexpr int P = T / W, PART = P * L;
  tessel_grid_begin();
  const int col = threadIdx.x % W, part = threadIdx.x / W;
  const long long c = (long long)(blockIdx.x / CL) * W + col;
  const long long start = (long long)(blockIdx.x % CL) * PART;
  float v[L];
#pragma unroll
  for (int k = 0; k < L; ++k) v[k] = x[(start + part + (long long)k * P) * C + c];
#pragma unroll
  for (int k = 0; k < L; ++k) y[(start + part + (long long)k * P) * C + c] = v[k];
}

// `held` with LR lanes in registers and LS in shared memory (filled by cp.async), so that
// two blocks an SM hold the part: one block's loads run while the other waits at a cluster
// barrier. The exponentials are recomputed for the stores (WB false, as the generated kernel
// does) or written back to shared memory (WB true); the last barrier split.
template <int W, int T, int LR, int LS, int CL, bool WB>
__global__ void __launch_bounds__(T, 2) hybrid(const float* __restrict__ x, float* __restrict__ y, int) {
  constexpr int P = T / W, PART = P * (LR + LS);
  static_assert(PART * CL == R, "a cluster holds a column");
  extern __shared__ float buf[];  // [LS][T]
  __shared__ float parts[T / 32 * W];
  __shared__ float slots[2 * W], slots2[2 * W];
  tessel_grid_begin();
  const int col = threadIdx.x % W, part = threadIdx.x / W;
  const long long c = (long long)(blockIdx.x / CL) * W + col;
  const long long start = (long long)(blockIdx.x % CL) * PART;
  const float* px = x + (start + part) * C + c;
#pragma unroll
  for (int k = 0; k < LS; ++k) {
    const unsigned dst = (unsigned)__cvta_generic_to_shared(buf + k * T + threadIdx.x);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(px + (LR + k) * (P * C)) : "memory");
  }
  float v[LR];
#pragma unroll
  for (int k = 0; k < LR; ++k) v[k] = px[k * (P * C)];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < LR; ++k) m = fmaxf(m, v[k]);
  asm volatile("cp.async.wait_all;" ::: "memory");
#pragma unroll
  for (int k = 0; k < LS; ++k) m = fmaxf(m, buf[k * T + threadIdx.x]);
  m = combine<W, T, CL>(m, MaxOp(), parts, slots);
  float s = 0;
#pragma unroll
  for (int k = 0; k < LR; ++k) { v[k] = expf(v[k] - m); s += v[k]; }
#pragma unroll
  for (int k = 0; k < LS; ++k) {
    const float e = expf(buf[k * T + threadIdx.x] - m);
    if (WB) buf[k * T + threadIdx.x] = e;
    s += e;
  }
  s = combine<W, T, CL>(s, SumOp(), parts, slots2);
  cluster_arrive();
  const float r = __frcp_rn(s);
  float* py = y + (start + part) * C + c;
#pragma unroll
  for (int k = 0; k < LR; ++k) py[k * (P * C)] = v[k] * r;
#pragma unroll
  for (int k = 0; k < LS; ++k) {
    const float b = buf[k * T + threadIdx.x];
    py[(LR + k) * (P * C)] = (WB ? b : expf(b - m)) * r;
  }
  cluster_wait();
}

// Online (max, sum) pairs: the sum is of exp(x - max).
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
  const float mm = fmaxf(m, m2);
  if (mm == -INFINITY) return;
  s = s * expf(m - mm) + s2 * expf(m2 - mm);
  m = mm;
}

__device__ __forceinline__ float load_keep(const float* p, unsigned long long policy) {
  float v;
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(policy));
  return v;
}

template <int W, int T, int CL, int U, bool HINTS = false>
__global__ void __launch_bounds__(T) twopass(const float* __restrict__ x, float* __restrict__ y, int) {
  constexpr int P = T / W, PART = R / CL, STEPS = PART / P;
  static_assert(STEPS % U == 0, "whole unrolled steps");
  constexpr int G = W >= 32 ? T / W : T / 32;  // groups whose partial values meet in shared memory
  __shared__ float pm[G * W], ps[G * W];
  __shared__ float sm[2 * W], ss[2 * W];
  tessel_grid_begin();
  const int col = threadIdx.x % W, part = threadIdx.x / W;
  const long long c = (long long)(blockIdx.x / CL) * W + col;
  const float* px = x + ((long long)(blockIdx.x % CL) * PART + part) * C + c;
  float* py = y + ((long long)(blockIdx.x % CL) * PART + part) * C + c;
  unsigned long long policy = 0;
  if (HINTS) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  float m = -INFINITY, s = 0;
  for (int i = 0; i < STEPS; i += U) {
    float v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = HINTS ? load_keep(px + (long long)(i + k) * P * C, policy) : px[(long long)(i + k) * P * C];
    float mm = m;
#pragma unroll
    for (int k = 0; k < U; ++k) mm = fmaxf(mm, v[k]);
    float t = 0;
#pragma unroll
    for (int k = 0; k < U; ++k) t += expf(v[k] - mm);
    s = (m == -INFINITY ? 0.f : s * expf(m - mm)) + t;
    m = mm;
  }
  for (int o = W; o < 32; o *= 2) merge(m, s, __shfl_xor_sync(~0u, m, o), __shfl_xor_sync(~0u, s, o));
  const int group = W >= 32 ? part : threadIdx.x / 32;
  if (W >= 32 || threadIdx.x % 32 < W) { pm[group * W + col] = m; ps[group * W + col] = s; }
  __syncthreads();
  m = pm[col]; s = ps[col];
  for (int p = 1; p < G; ++p) merge(m, s, pm[p * W + col], ps[p * W + col]);
  if (CL > 1) {
    cg::cluster_group cl = cg::this_cluster();
    if (threadIdx.x < W) { sm[threadIdx.x] = m; ss[threadIdx.x] = s; }
    cl.sync();
    if (threadIdx.x < W) {
      float a = *cl.map_shared_rank(sm + threadIdx.x, 0), b = *cl.map_shared_rank(ss + threadIdx.x, 0);
#pragma unroll
      for (int r = 1; r < CL; ++r) merge(a, b, *cl.map_shared_rank(sm + threadIdx.x, r), *cl.map_shared_rank(ss + threadIdx.x, r));
      sm[W + threadIdx.x] = a; ss[W + threadIdx.x] = b;
    }
    __syncthreads();
    m = sm[W + col]; s = ss[W + col];
  }
  const float r = __frcp_rn(s);
  for (int i = 0; i < STEPS; i += U) {
    float v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = HINTS ? __ldcs(px + (long long)(i + k) * P * C) : px[(long long)(i + k) * P * C];
#pragma unroll
    for (int k = 0; k < U; ++k) {
      if (HINTS) __stcs(py + (long long)(i + k) * P * C, expf(v[k] - m) * r);
      else py[(long long)(i + k) * P * C] = expf(v[k] - m) * r;
    }
  }
  if (CL > 1) cg::this_cluster().sync();
}


#ifndef LAB_SHORT
// `hybrid`'s part of a column (LR lanes in registers, LS staged by the block's 16-byte copies)
// without a cluster: the G blocks of a column group meet through global memory, so any free
// slot of any SM takes a block (clusters of 16 fit 14 at once: 224 of 264 slots). A block's
// place comes from a ticket taken at its start (blocks started hold consecutive tickets, so
// only the newest group can be waiting on blocks not yet started: no deadlock). Each block
// publishes its columns' (max, sum of exp(x - max)) and waits on its group's arrival count;
// counters grow by G (tickets by the grid) a launch, `epoch` the launch's number.
// NOSYNC: no waiting (wrong values: the global exchange's cost).
__device__ unsigned g_tickets;
__device__ unsigned g_arrived[C];
__device__ float2 g_partials[C * 64];
template <int W, int T, int LR, int LS, int G, int B = 2, bool NOSYNC = false>
__global__ void __launch_bounds__(T, B) grouped(const float* __restrict__ x, float* __restrict__ y, unsigned epoch) {
  constexpr int P = T / W, PART = P * (LR + LS);
  static_assert(W % 32 == 0 && PART * G == R, "a group holds a column, warps whole rows");
  extern __shared__ __align__(16) float buf[];  // [LS][T]
  __shared__ float pm[P][W + 1], ps[P][W + 1];
  __shared__ float total[2][W];
  __shared__ unsigned ticket_slot;
  tessel_grid_begin();
  if (threadIdx.x == 0) ticket_slot = atomicAdd(&g_tickets, 1u) - epoch * gridDim.x;
  __syncthreads();
  const unsigned ticket = ticket_slot;
  const int group = ticket / G, member = ticket % G;
  const int col = threadIdx.x % W, part = threadIdx.x / W;
  const long long c = (long long)group * W + col;
  const long long start = (long long)member * PART;
  for (int i = threadIdx.x; i < LS * T / 4; i += T) {
    const long long r = start + LR * P + i / (W / 4);
    const float* src = x + r * C + (long long)group * W + i % (W / 4) * 4;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((unsigned)__cvta_generic_to_shared(buf + i * 4)), "l"(src) : "memory");
  }
  const float* px = x + (start + part) * C + c;
  float v[LR];
#pragma unroll
  for (int k = 0; k < LR; ++k) v[k] = px[k * (P * C)];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < LR; ++k) m = fmaxf(m, v[k]);
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
#pragma unroll
  for (int k = 0; k < LS; ++k) m = fmaxf(m, buf[k * T + threadIdx.x]);
  pm[part][col] = m;
  __syncthreads();
  m = pm[0][col];
  for (int p = 1; p < P; ++p) m = fmaxf(m, pm[p][col]);
  float s = 0;
#pragma unroll
  for (int k = 0; k < LR; ++k) { v[k] = expf(v[k] - m); s += v[k]; }
#pragma unroll
  for (int k = 0; k < LS; ++k) s += expf(buf[k * T + threadIdx.x] - m);
  ps[part][col] = s;
  __syncthreads();
  if (threadIdx.x < W) {
    s = ps[0][col];
    for (int p = 1; p < P; ++p) s += ps[p][col];
    __stcg(&g_partials[((long long)group * G + member) * W + col], make_float2(m, s));
    __threadfence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&g_arrived[group], 1u);
    const unsigned target = (epoch + 1) * G;
    unsigned seen = 0;
    if (!NOSYNC) do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(&g_arrived[group]) : "memory");
    } while (seen < target);
  }
  __syncthreads();
  if (threadIdx.x < W) {
    float mm = -INFINITY, ss = 0;
    for (int b = 0; b < G; ++b) {
      const float2 q = __ldcg(&g_partials[((long long)group * G + b) * W + col]);
      const float n = fmaxf(mm, q.x);
      ss = ss * expf(mm - n) + q.y * expf(q.x - n);
      mm = n;
    }
    total[0][col] = mm;
    total[1][col] = __frcp_rn(ss);
  }
  __syncthreads();
  const float M = total[0][col], r = total[1][col];
  const float rr = expf(m - M) * r;
  float* py = y + (start + part) * C + c;
#pragma unroll
  for (int k = 0; k < LR; ++k) py[k * (P * C)] = v[k] * rr;
#pragma unroll
  for (int k = 0; k < LS; ++k) py[(LR + k) * (P * C)] = expf(buf[k * T + threadIdx.x] - M) * r;
}
#endif

using Kernel = void (*)(const float*, float*, int);

float max_diff(const float* a, const float* b, size_t n) {
  std::vector<float> ha(n), hb(n);
  CK(cudaMemcpy(ha.data(), a, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), b, n * 4, cudaMemcpyDeviceToHost));
  float d = 0;
  for (size_t i = 0; i < n; ++i) d = std::max(d, std::abs(ha[i] - hb[i]) / std::max(1e-30f, std::abs(ha[i])));
  return d;
}

int main() {
  lab_once = getenv("LAB_ONCE") != nullptr;
  const size_t n = (size_t)R * C;
  float *x, *ref, *y;
  CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&ref, n * 4)); CK(cudaMalloc(&y, n * 4));
  repro_fill_f32<<<1024, 256>>>(x, n, 1ull);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double bytes = 2.0 * n * 4;
  const float copy = time_it([&] { copy4<<<sms * 8, 512>>>((const float4*)x, (float4*)y, n / 4); });
  printf("copy: %.4f ms, %.1f GB/s\n", copy, bytes / copy / 1e6);
#ifdef LAB_SHORT
  const float gen = time_it([&] { held<32, 1024, 8, 1, false><<<C / 32, 1024>>>(x, ref, 0); });
  printf("%-28s %.4f ms %6.1f%% of copy\n", "generated's scheme", gen, 100 * copy / gen);
#else
  // The generated kernel's launch, as `inspect column_softmax` prints it.
  CK(cudaFuncSetAttribute(GENERATED, cudaFuncAttributeMaxDynamicSharedMemorySize, GEN_SHARED));
  CK(cudaFuncSetAttribute(GENERATED, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  const float gen = time_it([&] { GENERATED<<<GEN_GRID, GEN_BLOCK, GEN_SHARED>>>(x, ref); });
  printf("%-28s %.4f ms %6.1f%% of copy\n", "generated", gen, 100 * copy / gen);
#endif
  // grid: 0 for a block a part of every column; else that many clusters (persistent).
  // per_group: blocks a column group where they are not a cluster (cl 1).
  auto run = [&](const char* name, Kernel k, int w, int t, int cl, int grid, int per_group = 0, int smem = 0) {
    if (smem) CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    if (cl > 8) CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(C / w * (per_group ? per_group : cl));
    cfg.blockDim = dim3(t);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cl; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr; cfg.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, k, &cfg) != cudaSuccess) { cudaGetLastError(); clusters = -1; }
    if (grid < 0) cfg.gridDim = dim3(clusters * cl * -grid);
    if (grid > 0) cfg.gridDim = dim3(grid * cl);
    const int wave = clusters > 0 ? clusters * cl : sms;
    CK(cudaMemset(y, 0, n * 4));
    const float ms = time_it([&] { CK(cudaLaunchKernelEx(&cfg, k, (const float*)x, y, wave)); });
    printf("%-28s %.4f ms %6.1f%% of copy  (%d clusters at once, grid %d; diff %.2e)\n", name, ms, 100 * copy / ms, clusters, cfg.gridDim.x, lab_once ? 0.f : max_diff(ref, y, n));
  };

#ifndef LAB_SHORT
  // `grouped`: a block a part of every column, any SM's slot; counters tagged by launch.
  unsigned epoch = 0;
  auto run_grouped = [&](const char* name, void (*k)(const float*, float*, unsigned), int w, int t, int g, int smem) {
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, t, smem));
    CK(cudaMemset(y, 0, n * 4));
    static const unsigned zeros[C + 1] = {};  // the counters restart with the epoch
    CK(cudaMemcpyToSymbol(g_tickets, zeros, 4));
    CK(cudaMemcpyToSymbol(g_arrived, zeros, sizeof(g_arrived)));
    epoch = 0;
    const int grid = C / w * g;
    const float ms = time_it([&] { k<<<grid, t, smem>>>(x, y, epoch++); });
    printf("%-28s %.4f ms %6.1f%% of copy  (%d blocks an SM, grid %d; diff %.2e)\n", name, ms, 100 * copy / ms, per_sm, grid, lab_once ? 0.f : max_diff(ref, y, n));
  };
  run_grouped("grouped 32x512x32+32 g16", grouped<32, 512, 32, 32, 16>, 32, 512, 16, 65536);
  run_grouped("grouped 32x512x32+32 nosync", grouped<32, 512, 32, 32, 16, 2, true>, 32, 512, 16, 65536);
  run_grouped("grouped 32x256x32+32 g32", grouped<32, 256, 32, 32, 32, 4>, 32, 256, 32, 32768);
  run_grouped("grouped 64x512x32+32 g32", grouped<64, 512, 32, 32, 32>, 64, 512, 32, 65536);
  run_grouped("grouped 64x512x32+32 nosync", grouped<64, 512, 32, 32, 32, 2, true>, 64, 512, 32, 65536);
  run_grouped("grouped 64x256x32+32 g64", grouped<64, 256, 32, 32, 64, 4>, 64, 256, 64, 32768);
  run_grouped("grouped 128x512x32+32 g64", grouped<128, 512, 32, 32, 64>, 128, 512, 64, 65536);
  run_grouped("grouped 32x512x32+32 g16", grouped<32, 512, 32, 32, 16>, 32, 512, 16, 65536);
#endif
#ifdef LAB_SHORT
  run("held 32x512x16", held<32, 512, 16, 1, false>, 32, 512, 1, 0);
  run("held 32x256x32", held<32, 256, 32, 1, false>, 32, 256, 1, 0);
  run("held 16x512x8", held<16, 512, 8, 1, false>, 16, 512, 1, 0);
  run("held 16x256x16", held<16, 256, 16, 1, false>, 16, 256, 1, 0);
  run("held 8x256x8", held<8, 256, 8, 1, false>, 8, 256, 1, 0);
  run("stride_copy 32x1024x8", stride_copy<32, 1024, 8, 1>, 32, 1024, 1, 0);
  run("stride_copy 32x256x32", stride_copy<32, 256, 32, 1>, 32, 256, 1, 0);
#else
  run("held 8x1024x16 cl8", held<8, 1024, 16, 8, false>, 8, 1024, 8, 0);
  run("held 8x1024x16 cl8 split", held<8, 1024, 16, 8, false, false, true>, 8, 1024, 8, 0);
  run("held 8x1024x16 cl8 nocl", held<8, 1024, 16, 8, false, true>, 8, 1024, 8, 0);
  run("held 8x1024x16 cl8 +pf", held<8, 1024, 16, 8, true>, 8, 1024, 8, 0);
  run("stride_copy 8x1024x16", stride_copy<8, 1024, 16, 8>, 8, 1024, 8, 0);
  run("stride_copy 16x1024x16", stride_copy<16, 1024, 16, 16>, 16, 1024, 16, 0);
  run("stride_copy 32x1024x16", stride_copy<32, 1024, 16, 32>, 32, 1024, 1, 0, 32);
  run("stride_copy 64x1024x16", stride_copy<64, 1024, 16, 64>, 64, 1024, 1, 0, 64);
  run("stride_copy 128x1024x16", stride_copy<128, 1024, 16, 128>, 128, 1024, 1, 0, 128);
  run("held 32x1024x32 cl16 split", held<32, 1024, 32, 16, false, false, true>, 32, 1024, 16, 0);
  run("hybrid 16x512x32+32 cl8", hybrid<16, 512, 32, 32, 8, false>, 16, 512, 8, 0, 0, 65536);
  run("hybrid 16x512x32+32 cl8 wb", hybrid<16, 512, 32, 32, 8, true>, 16, 512, 8, 0, 0, 65536);
  run("hybrid 16x512x16+48 cl8", hybrid<16, 512, 16, 48, 8, false>, 16, 512, 8, 0, 0, 98304);
  run("hybrid 32x512x32+32 cl16 wb", hybrid<32, 512, 32, 32, 16, true>, 32, 512, 16, 0, 0, 65536);
  run("hybrid 32x512x16+48 cl16", hybrid<32, 512, 16, 48, 16, false>, 32, 512, 16, 0, 0, 98304);
  run("twopass 32x512 cl8", twopass<32, 512, 8, 8>, 32, 512, 8, 0);
  run("twopass 32x512 cl16 hints", twopass<32, 512, 16, 8, true>, 32, 512, 16, 0);
#endif
  return 0;
}
