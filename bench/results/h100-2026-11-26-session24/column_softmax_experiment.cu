// Experiment: softmax over the leading axis of [16384, 8192] f32, held on chip by clusters.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>
namespace cg = cooperative_groups;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

constexpr int kLen = 16384, kCols = 8192;

template <int W, int T, int L, bool SYNC, bool STREAM>
__global__ void __launch_bounds__(T) colsm(const float* __restrict__ in, float* __restrict__ out, int C) {
  constexpr int P = T / W;
  __shared__ float parts[T / 32 * (W + 1)];
  __shared__ float slot[2][2 * W];
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = cluster.block_rank();
  const int column = threadIdx.x % W, part = threadIdx.x / W;
  const long first = (long)(blockIdx.x / C) * W + column;
  const long start = (long)rank * (P * L);
  float x[L];
#pragma unroll
  for (int k = 0; k < L; ++k) {
    const float* p = in + (start + part + (long)k * P) * kCols + first;
    x[k] = STREAM ? __ldcs(p) : *p;
  }
  auto combine = [&](float a, bool is_max, int which) {
    for (int off = W; off < 32; off *= 2) {
      float o = __shfl_xor_sync(0xffffffffu, a, off);
      a = is_max ? fmaxf(a, o) : a + o;
    }
    __syncthreads();
    if (threadIdx.x % 32 < W) parts[threadIdx.x / 32 * (W + 1) + threadIdx.x % 32] = a;
    __syncthreads();
    a = parts[column];
    for (int p = 1; p < T / 32; ++p) { float o = parts[p * (W + 1) + column]; a = is_max ? fmaxf(a, o) : a + o; }
    if (SYNC) {
      if (threadIdx.x < W) slot[which][threadIdx.x] = a;
      cluster.sync();
      if (threadIdx.x < W) {
        float r = is_max ? -INFINITY : 0.f;
        for (int b = 0; b < C; ++b) { float o = *cluster.map_shared_rank(&slot[which][threadIdx.x], b); r = is_max ? fmaxf(r, o) : r + o; }
        slot[which][W + threadIdx.x] = r;
      }
      __syncthreads();
      a = slot[which][W + column];
    }
    return a;
  };
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < L; ++k) m = fmaxf(m, x[k]);
  m = combine(m, true, 0);
  float s = 0;
#pragma unroll
  for (int k = 0; k < L; ++k) { x[k] = expf(x[k] - m); s += x[k]; }
  s = combine(s, false, 1);
  const float r = __frcp_rn(s);
#pragma unroll
  for (int k = 0; k < L; ++k) {
    float* p = out + (start + part + (long)k * P) * kCols + first;
    if (STREAM) __stcs(p, x[k] * r); else *p = x[k] * r;
  }
  if (SYNC) cluster.sync();
}


// Persistent clusters, the next strip's loads issued before this strip's barriers.
template <int W, int T, int L, bool ONLINE>
__global__ void __launch_bounds__(T) colsm_p(const float* __restrict__ in, float* __restrict__ out, int C) {
  constexpr int P = T / W;
  __shared__ float parts[T / 32 * (W + 1)];
  __shared__ float parts2[T / 32 * (W + 1)];
  __shared__ float slot[2][2][2 * W];  // [parity][acc]
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = cluster.block_rank();
  const int column = threadIdx.x % W, part = threadIdx.x / W;
  const int clusters = gridDim.x / C, strips = kCols / W;
  const long start = (long)rank * (P * L);
  auto load = [&](int strip, float* x) {
    const long first = (long)strip * W + column;
#pragma unroll
    for (int k = 0; k < L; ++k) x[k] = in[(start + part + (long)k * P) * kCols + first];
  };
  float x[L], nx[L];
  int strip = blockIdx.x / C;
  if (strip < strips) load(strip, x);
  int parity = 0;
  for (; strip < strips; strip += clusters, parity ^= 1) {
    const int next = strip + clusters;
    if (next < strips) load(next, nx);
    // Local (max, sum) pairs.
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < L; ++k) m = fmaxf(m, x[k]);
    float M, S;
    if (ONLINE) {
      float sum = 0;
#pragma unroll
      for (int k = 0; k < L; ++k) { x[k] = __expf(x[k] - m); sum += x[k]; }
      auto merge = [](float& m1, float& s1, float m2, float s2) {
        const float mm = fmaxf(m1, m2);
        s1 = (m1 == -INFINITY ? 0.f : s1 * __expf(m1 - mm)) + (m2 == -INFINITY ? 0.f : s2 * __expf(m2 - mm));
        m1 = mm;
      };
      float bm = m, bs = sum;
      for (int off = W; off < 32; off *= 2) merge(bm, bs, __shfl_xor_sync(0xffffffffu, bm, off), __shfl_xor_sync(0xffffffffu, bs, off));
      if (threadIdx.x % 32 < W) { parts[threadIdx.x / 32 * (W + 1) + threadIdx.x % 32] = bm; parts2[threadIdx.x / 32 * (W + 1) + threadIdx.x % 32] = bs; }
      __syncthreads();
      if (threadIdx.x < W) {
        float cm = parts[column], cs = parts2[column];
        for (int p = 1; p < T / 32; ++p) merge(cm, cs, parts[p * (W + 1) + column], parts2[p * (W + 1) + column]);
        slot[parity][0][threadIdx.x] = cm; slot[parity][1][threadIdx.x] = cs;
      }
      cluster.sync();
      if (threadIdx.x < W) {
        float cm = -INFINITY, cs = 0;
        for (int b = 0; b < C; ++b) merge(cm, cs, *cluster.map_shared_rank(&slot[parity][0][threadIdx.x], b), *cluster.map_shared_rank(&slot[parity][1][threadIdx.x], b));
        slot[parity][0][W + threadIdx.x] = cm; slot[parity][1][W + threadIdx.x] = cs;
      }
      __syncthreads();
      M = slot[parity][0][W + column]; S = slot[parity][1][W + column];
      const float f = __expf(m - M) / S;
#pragma unroll
      for (int k = 0; k < L; ++k) x[k] *= f;
    } else {
      auto combine = [&](float a, bool is_max, int which) {
        for (int off = W; off < 32; off *= 2) {
          float o = __shfl_xor_sync(0xffffffffu, a, off);
          a = is_max ? fmaxf(a, o) : a + o;
        }
        __syncthreads();
        if (threadIdx.x % 32 < W) parts[threadIdx.x / 32 * (W + 1) + threadIdx.x % 32] = a;
        __syncthreads();
        if (threadIdx.x < W) {
          a = parts[column];
          for (int p = 1; p < T / 32; ++p) { float o = parts[p * (W + 1) + column]; a = is_max ? fmaxf(a, o) : a + o; }
          slot[parity][which][threadIdx.x] = a;
        }
        cluster.sync();
        if (threadIdx.x < W) {
          float r = is_max ? -INFINITY : 0.f;
          for (int b = 0; b < C; ++b) { float o = *cluster.map_shared_rank(&slot[parity][which][threadIdx.x], b); r = is_max ? fmaxf(r, o) : r + o; }
          slot[parity][which][W + threadIdx.x] = r;
        }
        __syncthreads();
        return slot[parity][which][W + column];
      };
      M = combine(m, true, 0);
      float sum = 0;
#pragma unroll
      for (int k = 0; k < L; ++k) { x[k] = expf(x[k] - M); sum += x[k]; }
      S = combine(sum, false, 1);
      const float r = __frcp_rn(S);
#pragma unroll
      for (int k = 0; k < L; ++k) x[k] *= r;
    }
    const long first = (long)strip * W + column;
#pragma unroll
    for (int k = 0; k < L; ++k) out[(start + part + (long)k * P) * kCols + first] = x[k];
#pragma unroll
    for (int k = 0; k < L; ++k) x[k] = nx[k];
  }
  cluster.sync();
}


// The access pattern alone: a block loads W columns of `P * L` rows (all before any store),
// then stores them back; HOLD = false stores each value as it arrives.
template <int W, int T, int L, bool HOLD>
__global__ void __launch_bounds__(T) pattern_copy(const float* __restrict__ in, float* __restrict__ out) {
  constexpr int P = T / W;
  constexpr int kPerBlock = P * L;
  constexpr int kParts = kLen / kPerBlock;
  const int column = threadIdx.x % W, part = threadIdx.x / W;
  const long first = (long)(blockIdx.x / kParts) * W + column;
  const long start = (long)(blockIdx.x % kParts) * kPerBlock;
  float x[L];
#pragma unroll
  for (int k = 0; k < L; ++k) {
    x[k] = in[(start + part + (long)k * P) * kCols + first];
    if (!HOLD) out[(start + part + (long)k * P) * kCols + first] = x[k] * 2.f;
  }
  if (HOLD) {
    __syncthreads();
#pragma unroll
    for (int k = 0; k < L; ++k) out[(start + part + (long)k * P) * kCols + first] = x[k] * 2.f;
  }
}


// Two passes over each piece, the second from L2: pass 1 reads a piece (W columns x RP rows)
// and publishes its columns' (max, sum of exp); the strip's last piece combines them; pass 2
// reads the piece again and writes. LOOK: pass 1 of the block's next piece runs before it waits.
struct Stat { float m, s; };
__device__ __forceinline__ Stat Merge(Stat a, Stat b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, 0.f};
  return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}
template <int W, int T, int RP, bool LOOK>
__global__ void __launch_bounds__(T) two_pass(const float* __restrict__ in, float* __restrict__ out,
                                              float2* partials, float2* finals, int* counts, int* ready) {
  constexpr int G = T / W, K = RP / G, R = kLen / RP;
  const int items = kCols / W * R;
  __shared__ Stat sh[G][W];
  __shared__ int last;
  const int col = threadIdx.x % W, grp = threadIdx.x / W;
  auto pass1 = [&](int item) {
    const int strip = item / R, piece = item % R;
    const float* base = in + (long)(piece * RP + grp) * kCols + strip * W + col;
    float x[K];
#pragma unroll
    for (int k = 0; k < K; ++k) x[k] = base[(long)k * G * kCols];
    Stat st{-INFINITY, 0.f};
#pragma unroll
    for (int k = 0; k < K; ++k) st.m = fmaxf(st.m, x[k]);
#pragma unroll
    for (int k = 0; k < K; ++k) st.s += __expf(x[k] - st.m);
    sh[grp][col] = st;
    __syncthreads();
    if (threadIdx.x < W) {
      Stat a = sh[0][col];
      for (int g = 1; g < G; ++g) a = Merge(a, sh[g][col]);
      partials[(long)item * W + col] = make_float2(a.m, a.s);
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&counts[strip], 1) == R - 1;
    __syncthreads();
    if (last) {
      {
        constexpr int Q = R / G;
        float2 v[Q];
#pragma unroll
        for (int q = 0; q < Q; ++q) v[q] = __ldcg(&partials[((long)strip * R + grp * Q + q) * W + col]);
        Stat a{v[0].x, v[0].y};
#pragma unroll
        for (int q = 1; q < Q; ++q) a = Merge(a, {v[q].x, v[q].y});
        __syncthreads();
        sh[grp][col] = a;
        __syncthreads();
        if (threadIdx.x < W) {
          a = sh[0][col];
          for (int g = 1; g < G; ++g) a = Merge(a, sh[g][col]);
          finals[strip * W + col] = make_float2(a.m, 1.f / a.s);
        }
      }
      __threadfence();
      __syncthreads();
      if (threadIdx.x == 0) atomicExch(&ready[strip], 1);
    }
  };
  auto pass2 = [&](int item) {
    const int strip = item / R, piece = item % R;
    if (threadIdx.x == 0) {
      while (atomicAdd(&ready[strip], 0) == 0) __nanosleep(100);
    }
    __syncthreads();
    const float2 f = __ldcg(&finals[strip * W + col]);
    const long off = (long)(piece * RP + grp) * kCols + strip * W + col;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const float x = in[off + (long)k * G * kCols];
      out[off + (long)k * G * kCols] = __expf(x - f.x) * f.y;
    }
  };
  int item = blockIdx.x;
  if (LOOK) {
    if (item < items) pass1(item);
    for (; item < items; item += gridDim.x) {
      if (item + gridDim.x < items) pass1(item + gridDim.x);
      pass2(item);
    }
  } else {
    for (; item < items; item += gridDim.x) { pass1(item); pass2(item); }
  }
}

__global__ void copy4(const float4* in, float4* out, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) out[i] = in[i];
}
__global__ void fill(float* p, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = (h & 0xffff) / 65536.0f * 8.f - 4.f;
  }
}

float* g_in; float* g_out;
const double kBytes = 2.0 * kLen * kCols * 4;

template <typename F> double Time(F f) {
  f(); CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  double best = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    cudaEventRecord(a);
    for (int i = 0; i < 20; ++i) f();
    cudaEventRecord(b); CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b); ms /= 20; if (ms < best) best = ms;
  }
  return best;
}

template <int W, int T, int L, bool SYNC, bool STREAM>
void Run(const char* name, int C, double copy_ms) {
  auto k = colsm<W, T, L, SYNC, STREAM>;
  if (C > 8) CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  if ((T / W) * L * C != kLen) { printf("%s: bad shape\n", name); return; }
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(kCols / W * C); cfg.blockDim = dim3(T);
  cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = 1;
  int clusters = 0; cudaOccupancyMaxActiveClusters(&clusters, k, &cfg);
  cudaFuncAttributes fa; cudaFuncGetAttributes(&fa, k);
  double ms = Time([&] { CK(cudaLaunchKernelEx(&cfg, k, (const float*)g_in, g_out, C)); });
  double err = 0;
  if (SYNC) {
    std::vector<float> h((size_t)kLen * kCols);
    CK(cudaMemcpy(h.data(), g_out, h.size() * 4, cudaMemcpyDeviceToHost));
    for (int c : {0, 1, W - 1, W, 4095, kCols - 1}) {
      double s = 0; for (int r = 0; r < kLen; ++r) s += h[(size_t)r * kCols + c];
      err = fmax(err, fabs(s - 1));
    }
  }
  printf("%-34s cluster %2d regs %3d active clusters %3d (blocks %4d): %.4f ms %.0f GB/s %.1f%% of copy, |colsum-1| %.2e\n",
         name, C, fa.numRegs, clusters, clusters * C, ms, kBytes / ms / 1e6, 100 * copy_ms / ms, err);
}


template <int W, int T, int L, bool ONLINE>
void RunP(const char* name, int C, double copy_ms, int per_sm_clusters_override = 0) {
  auto k = colsm_p<W, T, L, ONLINE>;
  if (C > 8) CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  if ((T / W) * L * C != kLen) { printf("%s: bad shape\n", name); return; }
  cudaLaunchConfig_t cfg = {};
  cfg.blockDim = dim3(T);
  cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = 1;
  cfg.gridDim = dim3(kCols / W * C);
  int clusters = 0; CK(cudaOccupancyMaxActiveClusters(&clusters, k, &cfg));
  if (per_sm_clusters_override) clusters = per_sm_clusters_override;
  cfg.gridDim = dim3(clusters * C);
  cudaFuncAttributes fa; cudaFuncGetAttributes(&fa, k);
  double ms = Time([&] { CK(cudaLaunchKernelEx(&cfg, k, (const float*)g_in, g_out, C)); });
  std::vector<float> h((size_t)kLen * kCols);
  CK(cudaMemcpy(h.data(), g_out, h.size() * 4, cudaMemcpyDeviceToHost));
  double err = 0;
  for (int c : {0, 1, W - 1, W, 4095, kCols - 1}) {
    double s = 0; for (int r = 0; r < kLen; ++r) s += h[(size_t)r * kCols + c];
    err = fmax(err, fabs(s - 1));
  }
  printf("%-34s cluster %2d regs %3d persistent clusters %3d (blocks %4d): %.4f ms %.0f GB/s %.1f%% of copy, |colsum-1| %.2e\n",
         name, C, fa.numRegs, clusters, clusters * C, ms, kBytes / ms / 1e6, 100 * copy_ms / ms, err);
}


template <int W, int T, int L, bool HOLD>
void RunK(const char* name, double copy_ms) {
  auto k = pattern_copy<W, T, L, HOLD>;
  const int blocks = kCols / W * (kLen / (T / W * L));
  cudaFuncAttributes fa; cudaFuncGetAttributes(&fa, k);
  double ms = Time([&] { k<<<blocks, T>>>(g_in, g_out); });
  printf("%-34s regs %3d blocks %6d: %.4f ms %.0f GB/s %.1f%% of copy\n", name, fa.numRegs, blocks, ms, kBytes / ms / 1e6, 100 * copy_ms / ms);
}


template <int W, int T, int RP, bool LOOK>
void RunT(const char* name, int per_sm, double copy_ms) {
  auto k = two_pass<W, T, RP, LOOK>;
  constexpr int R = kLen / RP;
  const int strips = kCols / W;
  int occ = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, T, 0);
  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  if (per_sm > occ) { printf("%s: occupancy %d < %d\n", name, occ, per_sm); return; }
  int grid = sms * per_sm;
  grid -= grid % R;  // a strip's pieces in one round: no block waits on a later round
  if (grid == 0) grid = R;
  float2 *partials, *finals; int* flags;
  CK(cudaMalloc(&partials, (size_t)strips * R * W * 8)); CK(cudaMalloc(&finals, (size_t)strips * W * 8));
  CK(cudaMalloc(&flags, (size_t)strips * 8));
  cudaFuncAttributes fa; cudaFuncGetAttributes(&fa, k);
  double ms = Time([&] {
    cudaMemsetAsync(flags, 0, strips * 8);
    k<<<grid, T>>>(g_in, g_out, partials, finals, flags, flags + strips);
  });
  std::vector<float> h((size_t)kLen * kCols);
  CK(cudaMemcpy(h.data(), g_out, h.size() * 4, cudaMemcpyDeviceToHost));
  double err = 0;
  for (int c : {0, 1, W - 1, W, 4095, kCols - 1}) {
    double s = 0; for (int r = 0; r < kLen; ++r) s += h[(size_t)r * kCols + c];
    err = fmax(err, fabs(s - 1));
  }
  printf("%-34s regs %3d grid %4d (R %d): %.4f ms %.0f GB/s %.1f%% of copy, |colsum-1| %.2e\n", name, fa.numRegs, grid, R, ms, kBytes / ms / 1e6, 100 * copy_ms / ms, err);
  cudaFree(partials); cudaFree(finals); cudaFree(flags);
}

int main(int argc, char** argv) {
  const long n = (long)kLen * kCols;
  CK(cudaMalloc(&g_in, n * 4)); CK(cudaMalloc(&g_out, n * 4));
  fill<<<1024, 256>>>(g_in, n);
  double copy_ms = Time([&] { copy4<<<132 * 8, 512>>>((const float4*)g_in, (float4*)g_out, n / 4); });
  printf("copy: %.4f ms %.0f GB/s\n", copy_ms, kBytes / copy_ms / 1e6);
  RunT<64, 512, 128, false>("T1 w64 t512 rp128", 2, copy_ms);
  RunT<64, 512, 128, true>("T1L w64 t512 rp128 look", 2, copy_ms);
  RunT<64, 512, 128, true>("T1L3 w64 t512 rp128 look 3/sm", 3, copy_ms);
  RunT<64, 512, 128, true>("T1L4 w64 t512 rp128 look 4/sm", 4, copy_ms);
  RunT<64, 512, 256, true>("T7L w64 t512 rp256 look", 2, copy_ms);
  RunT<64, 512, 512, true>("T8L w64 t512 rp512 look", 1, copy_ms);
  RunT<32, 512, 256, true>("T3L w32 t512 rp256 look", 2, copy_ms);
  RunT<64, 256, 128, true>("T4L w64 t256 rp128 look 4/sm", 4, copy_ms);
  RunT<64, 256, 128, true>("T4L w64 t256 rp128 look 8/sm", 8, copy_ms);
  RunT<128, 512, 128, true>("T5L w128 t512 rp128 look", 2, copy_ms);
  RunT<64, 1024, 256, true>("T6L w64 t1024 rp256 look", 2, copy_ms);
  RunK<8, 1024, 16, true>("K1 pattern w8 t1024 l16 hold", copy_ms);
  RunK<8, 1024, 16, false>("K1s pattern w8 t1024 l16 stream", copy_ms);
  RunK<8, 256, 16, true>("K1b pattern w8 t256 l16 hold", copy_ms);
  RunK<16, 1024, 16, true>("K2 pattern w16 t1024 l16 hold", copy_ms);
  RunK<32, 1024, 16, true>("K3 pattern w32 t1024 l16 hold", copy_ms);
  RunK<32, 1024, 16, false>("K3s pattern w32 t1024 l16 stream", copy_ms);
  RunK<64, 1024, 16, true>("K4 pattern w64 t1024 l16 hold", copy_ms);
  RunK<32, 256, 16, true>("K5 pattern w32 t256 l16 hold", copy_ms);
  RunK<128, 1024, 8, true>("K6 pattern w128 t1024 l8 hold", copy_ms);
  Run<8, 1024, 16, true, false>("A w8 t1024 l16 (current)", 8, copy_ms);
  Run<8, 1024, 16, false, false>("B w8 t1024 l16 no cluster sync", 8, copy_ms);
  Run<8, 1024, 16, true, true>("E w8 t1024 l16 streaming", 8, copy_ms);
  Run<16, 1024, 16, true, false>("C w16 t1024 l16", 16, copy_ms);
  Run<16, 1024, 16, true, true>("H w16 t1024 l16 streaming", 16, copy_ms);
  Run<16, 1024, 16, false, false>("C' w16 t1024 l16 no sync", 16, copy_ms);
  Run<8, 512, 16, true, false>("D w8 t512 l16", 16, copy_ms);
  Run<8, 512, 32, true, false>("D2 w8 t512 l32", 8, copy_ms);
  Run<16, 512, 32, true, false>("D3 w16 t512 l32", 16, copy_ms);
  Run<32, 1024, 32, true, false>("G w32 t1024 l32", 16, copy_ms);
  RunP<8, 1024, 16, false>("P1 w8 t1024 l16", 8, copy_ms);
  RunP<8, 1024, 16, true>("P1o w8 t1024 l16 online", 8, copy_ms);
  RunP<16, 1024, 16, false>("P2 w16 t1024 l16", 16, copy_ms);
  RunP<16, 1024, 16, true>("P2o w16 t1024 l16 online", 16, copy_ms);
  RunP<8, 512, 32, false>("P3 w8 t512 l32", 8, copy_ms);
  RunP<8, 512, 32, true>("P3o w8 t512 l32 online", 8, copy_ms);
  RunP<16, 512, 32, true>("P4o w16 t512 l32 online", 16, copy_ms);
  RunP<8, 512, 16, true>("P5o w8 t512 l16 online", 16, copy_ms);
  RunP<8, 256, 32, true>("P6o w8 t256 l32 online", 16, copy_ms);
  for (int g = 0; g < 0; ++g) {
    CK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, g));
    printf("L2 fetch granularity %d\n", g);
    Run<8, 1024, 16, true, false>("A w8 t1024 l16 (current)", 8, copy_ms);
    Run<16, 1024, 16, true, false>("C w16 t1024 l16", 16, copy_ms);
  }
  return 0;
}
