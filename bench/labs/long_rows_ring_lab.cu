// Lab: bf16 softmax over long rows (issue 13's 131072-wide row at 51% of the H200's copy,
// bench/RESULTS.md, fiftieth session). There, a kernel that only loads and stores the same
// 32 MB reached 89% of the copy; the generated one (clusters of 8 blocks of 1024 threads, a
// row's part in registers, two waves) loses the rest waiting: each block's loads, its
// reductions and the cluster's exchange run one after another. Variants (fifty-fifth session,
// bench/RESULTS.md has their figures):
//   generated: the kernel tessel emits today (the .sh script's dump), launched as generated.
//   trimmed<pack, fma, math>: the generated scheme with fewer instructions (outputs packed by
//     pairs, exp by one FFMA), or its loads and stores alone.
//   ring<C, T, kPart, kRing, kExchange>: persistent clusters of C blocks walking rows, each
//     block's parts streamed into a ring of kRing 16 KB chunks of shared memory by bulk
//     copies (the next rows in flight while this one is reduced); one exchange of (max, sum)
//     pairs a row through distributed shared memory (none: each block's own, wrong results).
//   held<C, T, kPart>: a row held in the shared memory of a cluster of C blocks (one block a
//     row where C is 1), folded into online pairs as its chunks land, read again to store.
//   twophase<T, kUnit>: persistent blocks, pairs of units counted per row, then each unit read
//     again (from L2) and stored.
// Prints each variant's time, its share of a float4 copy of the same bytes, and the largest
// difference from the generated kernel's result (or, for shapes tessel has no dump of here,
// from a plain reference kernel). The butterflies and launches were moved into helpers after
// the measured runs.
// Build: bench/labs/long_rows_ring_lab.sh; run dist/lab/long_rows_ring_lab.
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "generated.cuh"  // the prelude and the generated kernel (the .sh script's)
#include "lab_timing.cuh"

using bf16 = __nv_bfloat16;

constexpr int kChunk = 8192;  // bf16 values a bulk copy moves (16 KB)

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void bar_init(unsigned long long* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
__device__ __forceinline__ void bar_expect(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bar_wait(unsigned long long* bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n WAIT_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra WAIT_%=;\n}" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes,
                                          unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ float2 remote_pair(const float2* slot, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(smem_addr(slot)), "r"(rank));
  float2 v;
  asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];"
               : "=f"(v.x), "=f"(v.y)
               : "r"(remote)
               : "memory");
  return v;
}
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// (m, s) pairs: s a sum of exp(x - m); merged as S = s1 exp(m1 - M) + s2 exp(m2 - M).
__device__ __forceinline__ float2 merge(float2 a, float2 b) {
  const float m = tessel_max(a.x, b.x);
  if (m == __int_as_float(0xff800000)) return make_float2(m, 0.0f);
  return make_float2(m, a.y * tessel_exp_term(a.x - m) + b.y * tessel_exp_term(b.x - m));
}
// The pairs of `width` consecutive lanes merged (a butterfly: every lane gets the result).
__device__ __forceinline__ float2 warp_merge(float2 p, int width = 32) {
  for (int d = width / 2; d > 0; d >>= 1) {
    p = merge(p, make_float2(__shfl_xor_sync(~0u, p.x, d), __shfl_xor_sync(~0u, p.y, d)));
  }
  return p;
}
// The block's pairs merged, in every lane of warp 0 (after a barrier: `warp_pairs` holds T / 32).
template <int T>
__device__ __forceinline__ float2 block_merge(float2 p, float2* warp_pairs) {
  p = warp_merge(p);
  if ((threadIdx.x & 31) == 0) warp_pairs[threadIdx.x >> 5] = p;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  return warp_merge(lane < T / 32 ? warp_pairs[lane]
                                  : make_float2(__int_as_float(0xff800000), 0.0f));
}

// Rows of `len` in clusters of C blocks of T threads: block `rank` holds values [rank * part,
// (rank + 1) * part) of each row the cluster takes (rows cluster, cluster + clusters, ...).
// kRing: the chunks a block holds; kExchange false: each block's own pair (wrong results: the
// cluster's exchange's cost).
template <int C, int T, int kPart, int kRing, bool kExchange>
__global__ void __launch_bounds__(T, 1)
    ring(const bf16* __restrict__ x, bf16* __restrict__ y, int rows, int len) {
  constexpr int kChunks = kPart / kChunk;     // a part's chunks
  constexpr int kVecs = kPart / (8 * T);      // a thread's 8-value vectors of a part
  constexpr int kRowsHeld = kRing / kChunks;  // rows in flight
  static_assert(kPart % kChunk == 0 && kPart % (8 * T) == 0 && kRowsHeld >= 1);
  extern __shared__ __align__(128) unsigned char ring_smem[];
  bf16* chunks = reinterpret_cast<bf16*>(ring_smem);
  __shared__ __align__(8) unsigned long long full[kRing];
  __shared__ float2 warp_pairs[T / 32];
  __shared__ float2 slot[2];  // this block's pair, by row parity (read by the cluster)
  __shared__ float2 merged;
  const unsigned rank = cluster_rank();
  const int cluster = blockIdx.x / C, clusters = gridDim.x / C;
  const int my_rows = rows > cluster ? (rows - cluster + clusters - 1) / clusters : 0;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (tid == 0) {
    for (int i = 0; i < kRing; ++i) bar_init(&full[i], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  // Thread 0 asks for row i's part: chunk c of it into ring slot (i % kRowsHeld) * kChunks + c.
  auto request = [&](int i) {
    const long long row = cluster + (long long)i * clusters;
    const bf16* src = x + row * len + (long long)rank * kPart;
    for (int c = 0; c < kChunks; ++c) {
      const int s = (i % kRowsHeld) * kChunks + c;
      bar_expect(&full[s], kChunk * 2);
      bulk_load(chunks + (long long)s * kChunk, src + c * kChunk, kChunk * 2, &full[s]);
    }
  };
  if (tid == 0) {
    for (int i = 0; i < my_rows && i < kRowsHeld; ++i) request(i);
  }
  for (int i = 0; i < my_rows; ++i) {
    const long long row = cluster + (long long)i * clusters;
    const unsigned parity = (i / kRowsHeld) & 1;
    const bf16* part = chunks + (long long)(i % kRowsHeld) * kChunks * kChunk;
    float e[kVecs * 8];
    int waited = -1;
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      const int at = (v * T + tid) * 8, c = at / kChunk;
      if (c != waited) {
        bar_wait(&full[(i % kRowsHeld) * kChunks + c], parity);
        waited = c;
      }
      const uint4 q = *reinterpret_cast<const uint4*>(part + at);
      const unsigned u[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
      for (int j = 0; j < 8; ++j) e[8 * v + j] = tessel_bf16_lane(u, j);
    }
    float m = __int_as_float(0xff800000);
#pragma unroll
    for (int k = 0; k < kVecs * 8; ++k) m = tessel_max(m, e[k]);
    const float h = m == __int_as_float(0xff800000) ? 0.0f : m;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < kVecs * 8; ++k) {
      e[k] = tessel_exp_term(e[k] - h);
      s += e[k];
    }
    // (its barrier: every thread has read this row's chunks, thread 0 may refill them)
    const float2 b = block_merge<T>(make_float2(m, s), warp_pairs);
    if (warp == 0) {
      if (lane == 0) slot[i & 1] = b;
      if (lane == 0 && i + kRowsHeld < my_rows) request(i + kRowsHeld);
    }
    if (kExchange) {
      cluster_arrive();
      cluster_wait();
    }
    if (warp == 0) {
      const float2 r =
          warp_merge(lane < C ? (kExchange ? remote_pair(&slot[i & 1], lane) : slot[i & 1])
                              : make_float2(__int_as_float(0xff800000), 0.0f),
                     C);
      if (lane == 0) merged = r;
    }
    __syncthreads();
    const float2 g = merged;
    const float scale = tessel_exp_term(h - g.x) * __frcp_rn(g.y);
    bf16* out = y + row * len + (long long)rank * kPart;
#pragma unroll
    for (int v = 0; v < kVecs; ++v) {
      tessel_vec<bf16_t, 8> vec;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        vec.v[j] = tessel_float_to_bf16(tessel_round_bf16(e[8 * v + j] * scale));
      tessel_store_vec<bf16_t, 8>(reinterpret_cast<bf16_t*>(out) + (v * T + tid) * 8, vec);
    }
  }
  cluster_arrive();  // no block leaves while another may read its slots
  cluster_wait();
}

// A row held in the shared memory of a cluster of C blocks (one row a cluster, a part of
// kPart values a block: the whole part requested at once, in chunks of kChunk by bulk
// copies); each thread folds its values into an online (max, sum) pair as chunks land, the
// cluster exchanges the blocks' pairs once, and each value is read again from shared memory,
// its exp(x - max) / sum packed by pairs and stored. No value is held in registers across
// the exchange: the block's registers do not bound the part, its shared memory does.
template <int C, int T, int kPart>
__global__ void __launch_bounds__(T, 1)
    held(const bf16* __restrict__ x, bf16* __restrict__ y, int len) {
  constexpr int kChunks = kPart / kChunk;
  constexpr int kPerThread = kChunk / (8 * T);  // vectors of 8 a thread, a chunk
  static_assert(kPart % kChunk == 0 && kChunk % (8 * T) == 0);
  extern __shared__ __align__(128) unsigned char held_smem[];
  bf16* part = reinterpret_cast<bf16*>(held_smem);
  __shared__ __align__(8) unsigned long long full[kChunks];
  __shared__ float2 warp_pairs[T / 32];
  __shared__ float2 slot;
  __shared__ float2 merged;
  const unsigned rank = C > 1 ? cluster_rank() : 0;
  const long long row = blockIdx.x / C;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const float ninf = __int_as_float(0xff800000);
  const bf16* src = x + row * len + (long long)rank * kPart;
  if (tid == 0) {
    for (int c = 0; c < kChunks; ++c) bar_init(&full[c], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (int c = 0; c < kChunks; ++c) {
      bar_expect(&full[c], kChunk * 2);
      bulk_load(part + c * kChunk, src + c * kChunk, kChunk * 2, &full[c]);
    }
  }
  __syncthreads();
  float m = ninf, s = 0.0f;
  for (int c = 0; c < kChunks; ++c) {
    bar_wait(&full[c], 0);
#pragma unroll
    for (int v = 0; v < kPerThread; ++v) {
      const uint4 q = *reinterpret_cast<const uint4*>(part + c * kChunk + (v * T + tid) * 8);
      const unsigned u[4] = {q.x, q.y, q.z, q.w};
      float cm = tessel_bf16_lane(u, 0);
#pragma unroll
      for (int j = 1; j < 8; ++j) cm = tessel_max(cm, tessel_bf16_lane(u, j));
      const float nm = tessel_max(m, cm);
      const float h = nm == ninf ? 0.0f : nm;
      float t = 0.0f;
#pragma unroll
      for (int j = 0; j < 8; ++j) t += tessel_exp_term(tessel_bf16_lane(u, j) - h);
      s = (s == 0.0f ? 0.0f : s * tessel_exp_term(m - h)) + t;
      m = nm;
    }
  }
  const float2 b = block_merge<T>(make_float2(m, s), warp_pairs);
  if (warp == 0) {
    if (lane == 0) slot = b;
    if (C == 1 && lane == 0) merged = b;
  }
  if (C > 1) {
    cluster_arrive();
    cluster_wait();
    if (warp == 0) {
      const float2 r = warp_merge(lane < C ? remote_pair(&slot, lane) : make_float2(ninf, 0.0f), C);
      if (lane == 0) merged = r;
    }
    cluster_arrive();  // this block's reads of the others' slots are done
  }
  __syncthreads();
  const float2 g = merged;
  const float h = g.x == ninf ? 0.0f : g.x;
  const float rcp = __frcp_rn(g.y);
  bf16* out = y + row * len + (long long)rank * kPart;
#pragma unroll 4
  for (int k = 0; k < kPart / (8 * T); ++k) {
    const int at = (k * T + tid) * 8;
    const uint4 q = *reinterpret_cast<const uint4*>(part + at);
    const unsigned u[4] = {q.x, q.y, q.z, q.w};
    tessel_vec<unsigned, 4> vec;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      vec.v[j] = tessel_pack_bf16(tessel_exp_term(tessel_bf16_lane(u, 2 * j) - h) * rcp,
                                  tessel_exp_term(tessel_bf16_lane(u, 2 * j + 1) - h) * rcp);
    }
    tessel_store_vec<unsigned, 4>(reinterpret_cast<unsigned*>(out + at), vec);
  }
  if (C > 1) cluster_wait();  // no block leaves while another may read its slot
}

// Two passes in one launch of persistent blocks over units of kUnit values (a row's units
// taken in order, blocks walking units blockIdx.x, + gridDim.x, ...): pass 1 reduces each
// unit to its (max, sum) pair in `pairs` and counts it in its row's counter; pass 2 waits for
// its row's count (every block is resident, so every unit of pass 1 ends), merges the row's
// pairs, reads the unit again (from L2, where the input fits) and writes it. Counters only
// grow: a launch waits for `epoch` times the units of a row.
template <int T, int kUnit>
__global__ void __launch_bounds__(T)
    twophase(const bf16* __restrict__ x, bf16* __restrict__ y, int rows, int len, float2* pairs,
             unsigned* counts, unsigned epoch) {
  constexpr int kVecs = kUnit / (8 * T);
  static_assert(kUnit % (8 * T) == 0);
  __shared__ float2 warp_pairs[T / 32];
  __shared__ float2 merged;
  const int units_row = len / kUnit, units = rows * units_row;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const float ninf = __int_as_float(0xff800000);
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    const bf16* in = x + (long long)u * kUnit;
    float v[kVecs * 8];
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      const auto q =
          tessel_load_vec<unsigned, 4>(reinterpret_cast<const unsigned*>(in + (k * T + tid) * 8));
#pragma unroll
      for (int j = 0; j < 8; ++j) v[8 * k + j] = tessel_bf16_lane(q.v, j);
    }
    float m = ninf;
#pragma unroll
    for (int k = 0; k < kVecs * 8; ++k) m = tessel_max(m, v[k]);
    const float h = m == ninf ? 0.0f : m;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < kVecs * 8; ++k) s += tessel_exp_term(v[k] - h);
    const float2 b = block_merge<T>(make_float2(m, s), warp_pairs);
    if (warp == 0) {
      if (lane == 0) {
        pairs[u] = b;
        asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counts + u / units_row)
                     : "memory");
      }
    }
    __syncthreads();
  }
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    const int row = u / units_row;
    if (warp == 0) {
      if (lane == 0) {
        unsigned c;
        do {
          asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
                       : "=r"(c)
                       : "l"(counts + row)
                       : "memory");
        } while (c < epoch * units_row);
      }
      __syncwarp();
      float2 r = make_float2(ninf, 0.0f);
      for (int k = lane; k < units_row; k += 32) {
        float2 q;
        asm volatile("ld.relaxed.gpu.global.v2.f32 {%0, %1}, [%2];"
                     : "=f"(q.x), "=f"(q.y)
                     : "l"(pairs + (long long)row * units_row + k)
                     : "memory");
        r = merge(r, q);
      }
      r = warp_merge(r);
      if (lane == 0) merged = r;
    }
    __syncthreads();
    const float2 g = merged;
    const float rcp = __frcp_rn(g.y);
    const bf16* in = x + (long long)u * kUnit;
    bf16* out = y + (long long)u * kUnit;
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      const auto q =
          tessel_load_vec<unsigned, 4>(reinterpret_cast<const unsigned*>(in + (k * T + tid) * 8));
      tessel_vec<bf16_t, 8> vec;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        vec.v[j] = tessel_float_to_bf16(
            tessel_round_bf16(tessel_exp_term(tessel_bf16_lane(q.v, j) - g.x) * rcp));
      tessel_store_vec<bf16_t, 8>(reinterpret_cast<bf16_t*>(out) + (k * T + tid) * 8, vec);
    }
    __syncthreads();  // `merged` is read by all before the next unit's
  }
}

// The generated kernel's scheme (a cluster of 8 blocks of 1024 threads a row, 16 values a
// thread in registers, two exchanges), its instructions trimmed: kPack: each output pair
// converted by one cvt.rn.bf16x2 (the generated one rounds to bf16, widens and rounds again,
// per value); kFma: exp(x - m) as ex2(x log2e - m log2e), one FFMA, not an FADD and an FMUL;
// kMath false: the loads and stores alone (the values stored as loaded).
template <bool kPack, bool kFma, bool kMath>
__global__ void __launch_bounds__(1024) __cluster_dims__(8, 1, 1)
    trimmed(const bf16_t* in0, bf16_t* __restrict__ out0) {
  __shared__ float scratch_f32[32];
  __shared__ float slot_acc0[2];
  __shared__ float slot_acc1[2];
  const index_t row = blockIdx.x / 8;
  const index_t start = (index_t)(blockIdx.x % 8) * 16384;
  const int tid = threadIdx.x;
  auto col = [tid](int k) -> index_t { return (index_t)((k / 8) * 1024 + tid) * 8 + k % 8; };
  float e[16];
#pragma unroll
  for (int k = 0; k < 16; k += 8) {
    const auto vec =
        tessel_load_vec<unsigned, 4>((const unsigned*)(in0 + (row * 131072 + (start + col(k)))));
#pragma unroll
    for (int j = 0; j < 8; ++j) e[k + j] = tessel_bf16_lane(vec.v, j);
  }
  float rcp0 = 1.0f;
  if (kMath) {
    float acc0 = __int_as_float(0xff800000);
#pragma unroll
    for (int k = 0; k < 16; ++k) acc0 = tessel_max(acc0, e[k]);
    const float max0 = tessel_cluster_reduce<8>(
        tessel_block_reduce(acc0, tessel_max_op(), __int_as_float(0xff800000), scratch_f32),
        tessel_max_op(), slot_acc0, 1);
    const float shift = max0 * 1.4426950408889634f;
    float acc1 = 0.0f;
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      e[k] = kFma ? tessel_exp2_ftz(fmaf(e[k], 1.4426950408889634f, -shift))
                  : tessel_exp_term(e[k] - max0);
      acc1 += e[k];
    }
    const float sum0 =
        tessel_cluster_reduce<8>(tessel_block_reduce(acc1, tessel_sum_op(), 0.0f, scratch_f32),
                                 tessel_sum_op(), slot_acc1, 1);
    tessel_cluster_arrive();
    rcp0 = __frcp_rn(sum0);
  }
#pragma unroll
  for (int k = 0; k < 16; k += 8) {
    if (kPack || !kMath) {
      tessel_vec<unsigned, 4> vec;
#pragma unroll
      for (int j = 0; j < 4; ++j)
        vec.v[j] = tessel_pack_bf16(e[k + 2 * j] * rcp0, e[k + 2 * j + 1] * rcp0);
      tessel_store_vec<unsigned, 4>((unsigned*)(out0 + (row * 131072 + (start + col(k)))), vec);
    } else {
      tessel_vec<bf16_t, 8> vec;
#pragma unroll
      for (int j = 0; j < 8; ++j)
        vec.v[j] = tessel_float_to_bf16(tessel_round_bf16(e[k + j] * rcp0));
      tessel_store_vec<bf16_t, 8>(out0 + (row * 131072 + (start + col(k))), vec);
    }
  }
  if (kMath) tessel_cluster_wait();
}

// One block a row, in f32: the reference for shapes with no generated kernel here.
__global__ void reference(const bf16* x, bf16* y, int len) {
  __shared__ float red[1024];
  const bf16* r = x + (long long)blockIdx.x * len;
  float m = -INFINITY;
  for (int k = threadIdx.x; k < len; k += blockDim.x) m = fmaxf(m, __bfloat162float(r[k]));
  red[threadIdx.x] = m;
  __syncthreads();
  for (int d = blockDim.x / 2; d > 0; d >>= 1) {
    if (threadIdx.x < d) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + d]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float s = 0;
  for (int k = threadIdx.x; k < len; k += blockDim.x) s += expf(__bfloat162float(r[k]) - m);
  red[threadIdx.x] = s;
  __syncthreads();
  for (int d = blockDim.x / 2; d > 0; d >>= 1) {
    if (threadIdx.x < d) red[threadIdx.x] += red[threadIdx.x + d];
    __syncthreads();
  }
  s = red[0];
  for (int k = threadIdx.x; k < len; k += blockDim.x) {
    y[(long long)blockIdx.x * len + k] = __float2bfloat16(expf(__bfloat162float(r[k]) - m) / s);
  }
}

float max_diff(const bf16* a, const bf16* b, long long n) {
  std::vector<bf16> ha(n), hb(n);
  CK(cudaMemcpy(ha.data(), a, n * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), b, n * 2, cudaMemcpyDeviceToHost));
  float d = 0;
  for (long long i = 0; i < n; ++i) {
    const float u = __bfloat162float(ha[i]), v = __bfloat162float(hb[i]);
    d = std::max(d, std::isnan(u) != std::isnan(v)
                        ? INFINITY
                        : std::fabs(u - v) / std::max(1e-30f, std::fabs(u)));
  }
  return d;
}

// A cluster launch of `kernel` (C blocks a cluster of T threads, `smem` dynamic bytes);
// `attr` keeps the cluster's attribute alive as long as the config.
template <typename Kernel>
cudaLaunchConfig_t cluster_config(Kernel kernel, int C, int T, int smem,
                                  cudaLaunchAttribute* attr) {
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  if (C > 8) CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = C;
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.blockDim = dim3(T);
  config.dynamicSmemBytes = smem;
  config.attrs = attr;
  config.numAttrs = 1;
  return config;
}

// One variant's line: its time, GB/s, share of the copy (scaled to its bytes) and largest
// relative difference from lab.ref.
void report(const Bf16Lab& lab, const char* what, int rows, int len, float ms) {
  const double bytes = 4.0 * rows * len;
  printf("%s %d x %d: %.4f ms, %.1f GB/s, %.1f%% of copy, max rel diff %.3g\n", what, rows, len, ms,
         bytes / ms / 1e6, 100.0 * lab.copy_ms * bytes / (4.0 * 64 * 131072) / ms,
         max_diff(lab.ref, lab.y, (long long)rows * len));
}

template <int C, int T, int kPart, int kRing = 12, bool kExchange = true>
void run_ring(const Bf16Lab& lab, int rows, int len) {
  auto kernel = ring<C, T, kPart, kRing, kExchange>;
  const int smem = kRing * kChunk * 2;
  cudaLaunchAttribute attr;
  cudaLaunchConfig_t config = cluster_config(kernel, C, T, smem, &attr);
  config.gridDim = dim3(C * 256);
  int clusters = 0, per_sm = 0;
  CK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T, smem));
  clusters = std::min(clusters, rows);
  config.gridDim = dim3(C * clusters);
  const float ms =
      time_it([&] { CK(cudaLaunchKernelEx(&config, kernel, lab.x, lab.y, rows, len)); });
  char what[128];
  snprintf(what, sizeof(what), "ring<%d, %d, ring %d%s> (%d clusters, %d blocks an SM)", C, T,
           kRing, kExchange ? "" : ", local", clusters, per_sm);
  report(lab, what, rows, len, ms);
}

template <int T, int kUnit>
void run_twophase(const Bf16Lab& lab, int rows, int len) {
  auto kernel = twophase<T, kUnit>;
  static float2* pairs = nullptr;
  static unsigned* counts = nullptr;
  static unsigned epoch = 0;
  if (pairs == nullptr) {
    CK(cudaMalloc(&pairs, (1 << 16) * sizeof(float2)));
    CK(cudaMalloc(&counts, 4096 * sizeof(unsigned)));
  }
  CK(cudaMemset(counts, 0, 4096 * sizeof(unsigned)));
  epoch = 0;
  int per_sm = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = std::min(per_sm * sms, rows * (len / kUnit));
  const float ms =
      time_it([&] { kernel<<<grid, T>>>(lab.x, lab.y, rows, len, pairs, counts, ++epoch); });
  CK(cudaGetLastError());
  char what[128];
  snprintf(what, sizeof(what), "twophase<%d, %d> (%d blocks, %d an SM)", T, kUnit, grid, per_sm);
  report(lab, what, rows, len, ms);
}

template <int C, int T, int kPart>
void run_held(const Bf16Lab& lab, int rows, int len) {
  auto kernel = held<C, T, kPart>;
  const int smem = kPart * 2;
  cudaLaunchAttribute attr;
  cudaLaunchConfig_t config = cluster_config(kernel, C, T, smem, &attr);
  config.gridDim = dim3(C * rows);
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T, smem));
  const float ms = time_it([&] { CK(cudaLaunchKernelEx(&config, kernel, lab.x, lab.y, len)); });
  char what[128];
  snprintf(what, sizeof(what), "held<%d, %d> (%d blocks, %d an SM)", C, T, C * rows, per_sm);
  report(lab, what, rows, len, ms);
}

// Rows held by clusters of C blocks of kPart values: 512 and 256 threads a block, and twice
// the blocks of half the part.
template <int C, int kPart>
void run_held_variants(const Bf16Lab& lab, int rows, int len) {
  run_held<C, 512, kPart>(lab, rows, len);
  run_held<C, 256, kPart>(lab, rows, len);
  run_held<2 * C, 512, kPart / 2>(lab, rows, len);
}

int main() {
  constexpr long long kMax = 256ll * 131072;
  Bf16Lab lab = bf16_lab(64ll * 131072);  // the copy of the generated shape's bytes
  __nv_bfloat16* big = nullptr;
  CK(cudaMalloc(&big, kMax * 2));
  fill_bf16<<<1024, 256>>>(big, kMax);
  CK(cudaFree(lab.x));
  lab.x = big;
  CK(cudaFree(lab.ref));
  CK(cudaMalloc(&lab.ref, kMax * 2));
  CK(cudaFree(lab.y));
  CK(cudaMalloc(&lab.y, kMax * 2));
  const float gen = time_it([&] {
    GENERATED<<<512, 1024>>>(reinterpret_cast<const bf16_t*>(lab.x),
                             reinterpret_cast<bf16_t*>(lab.ref));
  });
  printf("generated 64 x 131072: %.4f ms, %.1f GB/s, %.1f%% of copy\n", gen,
         4.0 * 64 * 131072 / gen / 1e6, 100.0 * lab.copy_ms / gen);
  const auto variant = [&](const char* name, auto kernel) {
    const float ms = time_it([&] {
      kernel<<<512, 1024>>>(reinterpret_cast<const bf16_t*>(lab.x),
                            reinterpret_cast<bf16_t*>(lab.y));
    });
    report(lab, name, 64, 131072, ms);
  };
  variant("trimmed<pack>", trimmed<true, false, true>);
  variant("trimmed<pack, fma>", trimmed<true, true, true>);
  run_held<2, 512, 65536>(lab, 64, 131072);
  run_held<8, 512, 16384>(lab, 64, 131072);
  // Rows of each length, 2^25 values (gpu_bench's BM_SoftmaxRowLength).
  for (int len : {16384, 32768, 65536, 131072, 262144}) {
    const int rows = (1 << 25) / len;
    reference<<<rows, 1024>>>(lab.x, lab.ref, len);
    CK(cudaDeviceSynchronize());
    run_twophase<256, 8192>(lab, rows, len);
    if (len == 16384) run_held_variants<1, 16384>(lab, rows, len);
    if (len == 32768) run_held_variants<1, 32768>(lab, rows, len);
    if (len == 65536) run_held_variants<2, 32768>(lab, rows, len);
    if (len == 131072) run_held_variants<4, 32768>(lab, rows, len);
    if (len == 262144) run_held_variants<8, 32768>(lab, rows, len);
  }
  return 0;
}
