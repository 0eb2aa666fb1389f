// Lab: bf16 softmax over the leading and the middle axis of [256, 512, 512] (columns of 256
// and of 512), which tessel runs at 85.8% and 83.0% of copy against 92.1% and 96.6% in f32
// (bench/RESULTS.md, thirty-fifth session). The short-column lab showed the generated
// scheme's bare reads and writes at 101% of copy and the fast-math lab no instruction bound:
// what is left is how few bytes a thread keeps in flight (16 bf16 values in registers, half
// of f32's bytes) while the blocks of an SM take turns between loading and reducing. The
// question: do columns staged in shared memory by cp.async (16-byte copies, no registers
// held while in flight, more blocks an SM) reach the copy?
//   generated: the kernel tessel emits today (dumped by the .sh script through the driver
//              that runs no kernels), launched as the runtime launches it (since 881b13d the
//              tile itself: 64 columns a block of 512 threads, as staged_single w32 t512).
//   staged<A, W, T, store>: a block takes 2 W columns (W 32-bit words of each row), copies
//              its R x 4 W bytes into shared memory, then T threads, a word (a pair of
//              columns) a lane and T / W parts of the rows, reduce the max and the sum of
//              exponentials (parts combined in order through shared memory) and write
//              exp(v - max) / sum: 4-byte stores straight to global memory, or back into the
//              tile and out by 16-byte stores (store = true).
//   copy_staged<A, W, T>: the staged scheme's copies in and out alone (its ceiling).
//   single_pipelined<A, W, T>: staged_single's reductions in persistent blocks, each with
//              two tiles in flight (the next one copied while this one is reduced).
// Prints each variant's time, its share of a float4 copy of the same bytes, and the largest
// difference from the generated kernel's result.
// Build: bench/labs/staged_columns_lab.sh; run dist/lab/staged_columns_lab.
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "generated.cuh"  // the prelude and the two generated kernels (the .sh script's)
#include "lab_timing.cuh"

constexpr long long N = 256ll * 512 * 512;

using bf16 = __nv_bfloat16;

// Column c's element r (an axis of R) of x [256, 512, 512].
struct Lead {  // softmax(x, 0): 262144 columns of 256
  static constexpr int R = 256;
  static constexpr long long kColumns = 512 * 512;
  __device__ static long long At(long long c, int r) { return r * kColumns + c; }
};
struct Mid {  // softmax(x, 1): 131072 columns of 512
  static constexpr int R = 512;
  static constexpr long long kColumns = 256 * 512;
  __device__ static long long At(long long c, int r) {
    return c / 512 * (512 * 512) + (long long)r * 512 + c % 512;
  }
};

__device__ __forceinline__ void CopyAsync16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                   (unsigned)__cvta_generic_to_shared(dst)),
               "l"(src)
               : "memory");
}

__device__ __forceinline__ float2 Unpack(unsigned w) {
  return {__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u)};
}

// Each thread's pair combined over the block's P parts in part order (every thread of a
// word gets the same bits); `slots` holds P x (W + 1) pairs.
template <int W, int P, typename Op>
__device__ __forceinline__ float2 CombineParts(float2 v, float2* slots, Op op) {
  const int word = threadIdx.x % W, part = threadIdx.x / W;
  __syncthreads();  // the slots' last readers are done
  slots[part * (W + 1) + word] = v;
  __syncthreads();
  float2 r = slots[word];
#pragma unroll
  for (int p = 1; p < P; ++p) {
    const float2 q = slots[p * (W + 1) + word];
    r = {op(r.x, q.x), op(r.y, q.y)};
  }
  return r;
}
struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct Sum {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// The block's R x W words (2 W columns from column blockIdx.x * 2 W) into `tile`, row after
// row, by 16-byte copies.
template <class A, int W, int T>
__device__ __forceinline__ void StageTile(const bf16* x, unsigned* tile) {
  constexpr int kChunks = W / 4;  // 16-byte copies a row
  const long long c0 = (long long)blockIdx.x * 2 * W;
  for (int i = threadIdx.x; i < A::R * kChunks; i += T) {
    const int r = i / kChunks, chunk = i % kChunks;
    CopyAsync16(tile + 4 * i, x + A::At(c0 + 8 * chunk, r));
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
}

// The tile out by 16-byte stores.
template <class A, int W, int T>
__device__ __forceinline__ void StoreTile(const unsigned* tile, bf16* y) {
  constexpr int kChunks = W / 4;
  const long long c0 = (long long)blockIdx.x * 2 * W;
  for (int i = threadIdx.x; i < A::R * kChunks; i += T) {
    const int r = i / kChunks, chunk = i % kChunks;
    *(uint4*)(y + A::At(c0 + 8 * chunk, r)) = *(const uint4*)(tile + 4 * i);
  }
}

template <class A, int W, int T, bool kStoreStaged>
__global__ void __launch_bounds__(T) staged(const bf16* x, bf16* y) {
  constexpr int P = T / W, K = A::R / P;  // parts; rows a thread
  static_assert(T % W == 0 && A::R % P == 0, "parts of whole rows");
  extern __shared__ __align__(16) unsigned tile[];  // A::R x W words
  __shared__ float2 slots[P * (W + 1)];
  StageTile<A, W, T>(x, tile);
  const int word = threadIdx.x % W, part = threadIdx.x / W;
  float2 m = {-INFINITY, -INFINITY};
#pragma unroll 8
  for (int k = 0; k < K; ++k) {
    const float2 v = Unpack(tile[(part + k * P) * W + word]);
    m = {fmaxf(m.x, v.x), fmaxf(m.y, v.y)};
  }
  m = CombineParts<W, P>(m, slots, Max());
  float2 s = {0, 0};
#pragma unroll 8
  for (int k = 0; k < K; ++k) {
    const float2 v = Unpack(tile[(part + k * P) * W + word]);
    s = {s.x + expf(v.x - m.x), s.y + expf(v.y - m.y)};
  }
  s = CombineParts<W, P>(s, slots, Sum());
  const float2 rcp = {__frcp_rn(s.x), __frcp_rn(s.y)};
  const long long c = (long long)blockIdx.x * 2 * W + 2 * word;
#pragma unroll 8
  for (int k = 0; k < K; ++k) {
    const int r = part + k * P;
    const float2 v = Unpack(tile[r * W + word]);
    const __nv_bfloat162 out = __floats2bfloat162_rn(expf(v.x - m.x) * rcp.x, expf(v.y - m.y) * rcp.y);
    if constexpr (kStoreStaged) {
      tile[r * W + word] = *(const unsigned*)&out;
    } else {
      *(__nv_bfloat162*)(y + A::At(c, r)) = out;
    }
  }
  if constexpr (kStoreStaged) {
    __syncthreads();
    StoreTile<A, W, T>(tile, y);
  }
}

// The same a column a thread (as the generated kernels hold columns): `width` = 2 W columns a
// block, T / width parts, each thread's values read from the tile as 16-bit loads; the first
// 16 of a thread's rows kept in registers between the passes (as the generator's first chunk).
// Tile t (columns t * width ..) from `values` into y; `slots` holds P x (width + 1) floats.
template <class A, int W, int T>
__device__ __forceinline__ void SoftmaxTile(const unsigned short* values, bf16* y, long long t,
                                            float* slots) {
  constexpr int kWidth = 2 * W, P = T / kWidth, K = A::R / P, kKept = 16;
  static_assert(T % kWidth == 0 && A::R % P == 0 && K % kKept == 0, "parts of whole rows");
  const int column = threadIdx.x % kWidth, part = threadIdx.x / kWidth;
  auto value = [&](int k) {
    return __uint_as_float((unsigned)values[(part + k * P) * kWidth + column] << 16);
  };
  auto combine = [&](float v, auto op) {
    __syncthreads();
    slots[part * (kWidth + 1) + column] = v;
    __syncthreads();
    float r = slots[column];
#pragma unroll
    for (int p = 1; p < P; ++p) r = op(r, slots[p * (kWidth + 1) + column]);
    return r;
  };
  float kept[kKept];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < kKept; ++k) m = fmaxf(m, kept[k] = value(k));
#pragma unroll 8
  for (int k = kKept; k < K; ++k) m = fmaxf(m, value(k));
  m = combine(m, Max());
  float s = 0;
#pragma unroll
  for (int k = 0; k < kKept; ++k) s += kept[k] = expf(kept[k] - m);
#pragma unroll 8
  for (int k = kKept; k < K; ++k) s += expf(value(k) - m);
  const float rcp = __frcp_rn(combine(s, Sum()));
  const long long c = t * kWidth + column;
#pragma unroll
  for (int k = 0; k < kKept; ++k) y[A::At(c, part + k * P)] = __float2bfloat16(kept[k] * rcp);
#pragma unroll 8
  for (int k = kKept; k < K; ++k) {
    y[A::At(c, part + k * P)] = __float2bfloat16(expf(value(k) - m) * rcp);
  }
}

template <class A, int W, int T>
__global__ void __launch_bounds__(T) staged_single(const bf16* x, bf16* y) {
  extern __shared__ __align__(16) unsigned tile[];
  __shared__ float slots[T / (2 * W) * (2 * W + 1)];
  StageTile<A, W, T>(x, tile);
  SoftmaxTile<A, W, T>((const unsigned short*)tile, y, blockIdx.x, slots);
}

// Persistent blocks, two tiles in flight: while a block reduces tile t (as staged_single),
// its copies of tile t + gridDim.x land in the other buffer (cp.async groups), so that an
// SM's loads never wait for its reductions. Measured slower than the generated
// tile at every width and block count (thirty-eighth session, bench/RESULTS.md).
template <class A, int W, int T>
__device__ __forceinline__ void CopyTileAsync(const bf16* x, unsigned* tile, long long t) {
  constexpr int kChunks = W / 4;
  const long long c0 = t * 2 * W;
  for (int i = threadIdx.x; i < A::R * kChunks; i += T) {
    const int r = i / kChunks, chunk = i % kChunks;
    CopyAsync16(tile + 4 * i, x + A::At(c0 + 8 * chunk, r));
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}

template <class A, int W, int T>
__global__ void __launch_bounds__(T) single_pipelined(const bf16* x, bf16* y) {
  constexpr long long kTiles = A::kColumns / (2 * W);
  extern __shared__ __align__(16) unsigned tiles[];  // two of A::R x W words
  __shared__ float slots[T / (2 * W) * (2 * W + 1)];
  int buffer = 0;
  if (blockIdx.x < kTiles) CopyTileAsync<A, W, T>(x, tiles, blockIdx.x);
  for (long long t = blockIdx.x; t < kTiles; t += gridDim.x, buffer ^= 1) {
    if (t + gridDim.x < kTiles) {
      CopyTileAsync<A, W, T>(x, tiles + (buffer ^ 1) * A::R * W, t + gridDim.x);
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    __syncthreads();
    SoftmaxTile<A, W, T>((const unsigned short*)(tiles + buffer * A::R * W), y, t, slots);
    __syncthreads();  // this buffer is read: the copies after next may land in it
  }
}

template <class A, int W, int T>
__global__ void __launch_bounds__(T) copy_staged(const bf16* x, bf16* y) {
  extern __shared__ __align__(16) unsigned tile[];
  StageTile<A, W, T>(x, tile);
  StoreTile<A, W, T>(tile, y);
}

float MaxDiff(const std::vector<bf16>& a, const std::vector<bf16>& b) {
  float d = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    d = fmaxf(d, fabsf(__bfloat162float(a[i]) - __bfloat162float(b[i])));
  }
  return d;
}

// `generated` launched as the runtime launches it: `width` columns a block of `threads`, with
// `shared` bytes of dynamic shared memory (its tile, where it stages one).
struct GeneratedLaunch {
  int width, threads, shared;
};

template <class A>
void RunAxis(const char* axis, const Bf16Lab& lab, auto generated, GeneratedLaunch g) {
  std::vector<bf16> ref(N), got(N);
  CK(cudaFuncSetAttribute(generated, cudaFuncAttributeMaxDynamicSharedMemorySize, g.shared));
  const float gen = time_it([&] {
    generated<<<A::kColumns / g.width, g.threads, g.shared>>>((const bf16_t*)lab.x,
                                                            (bf16_t*)lab.ref);
  });
  CK(cudaMemcpy(ref.data(), lab.ref, N * 2, cudaMemcpyDeviceToHost));
  printf("%s generated          %.4f ms %6.1f%% of copy\n", axis, gen, 100 * lab.copy_ms / gen);
  auto run = [&](const char* name, auto kernel, int words, int threads, bool check) {
    const int smem = A::R * words * 4;
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaMemset(lab.y, 0, N * 2));
    const float ms = time_it([&] {
      kernel<<<A::kColumns / (2 * words), threads, smem>>>(lab.x, lab.y);
    });
    CK(cudaMemcpy(got.data(), lab.y, N * 2, cudaMemcpyDeviceToHost));
    printf("%s %-18s %.4f ms %6.1f%% of copy", axis, name, ms, 100 * lab.copy_ms / ms);
    if (check && !lab_once) printf("  (diff from generated %.2e)", MaxDiff(ref, got));
    printf("\n");
  };
  run("staged w32 t256", staged<A, 32, 256, false>, 32, 256, true);
  run("staged w32 t256 st", staged<A, 32, 256, true>, 32, 256, true);
  run("staged w32 t512", staged<A, 32, 512, false>, 32, 512, true);
  run("staged w32 t512 st", staged<A, 32, 512, true>, 32, 512, true);
  run("staged w16 t256", staged<A, 16, 256, false>, 16, 256, true);
  run("staged w16 t128", staged<A, 16, 128, false>, 16, 128, true);
  run("staged w64 t512", staged<A, 64, 512, false>, 64, 512, true);
  run("staged w64 t512 st", staged<A, 64, 512, true>, 64, 512, true);
  run("single w32 t512", staged_single<A, 32, 512>, 32, 512, true);
  run("single w32 t256", staged_single<A, 32, 256>, 32, 256, true);
  run("single w32 t1024", staged_single<A, 32, 1024>, 32, 1024, true);
  run("single w16 t256", staged_single<A, 16, 256>, 16, 256, true);
  // Persistent, two tiles a block in flight: `blocks` a block an SM (132 SMs).
  auto run_pipelined = [&](const char* name, auto kernel, int words, int threads, int blocks) {
    const int smem = 2 * A::R * words * 4;
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaMemset(lab.y, 0, N * 2));
    const float ms = time_it([&] { kernel<<<132 * blocks, threads, smem>>>(lab.x, lab.y); });
    CK(cudaMemcpy(got.data(), lab.y, N * 2, cudaMemcpyDeviceToHost));
    printf("%s %-18s %.4f ms %6.1f%% of copy", axis, name, ms, 100 * lab.copy_ms / ms);
    if (!lab_once) printf("  (diff from generated %.2e)", MaxDiff(ref, got));
    printf("\n");
  };
  // Blocks whose two buffers of `words` a row fit an SM.
  auto most = [](int words) { return 227 * 1024 / (2 * A::R * words * 4 + 4096); };
  run_pipelined("piped w32 t512", single_pipelined<A, 32, 512>, 32, 512, std::min(3, most(32)));
  run_pipelined("piped w32 t1024", single_pipelined<A, 32, 1024>, 32, 1024, std::min(2, most(32)));
  run_pipelined("piped w16 t512", single_pipelined<A, 16, 512>, 16, 512, std::min(3, most(16)));
  run_pipelined("piped w16 t256", single_pipelined<A, 16, 256>, 16, 256, std::min(4, most(16)));
  run_pipelined("piped w16 t256 x2", single_pipelined<A, 16, 256>, 16, 256, 2);
  run_pipelined("piped w8 t256", single_pipelined<A, 8, 256>, 8, 256, std::min(6, most(8)));
  run("copy w32 t256", copy_staged<A, 32, 256>, 32, 256, false);
  run("copy w16 t256", copy_staged<A, 16, 256>, 16, 256, false);
  run("copy w64 t512", copy_staged<A, 64, 512>, 64, 512, false);
}

int main() {
  const Bf16Lab lab = bf16_lab(N);
  RunAxis<Lead>("lead", lab, GENERATED_LEAD, {GEN_LEAD_WIDTH, GEN_LEAD_BLOCK, GEN_LEAD_SHARED});
  RunAxis<Mid>("mid ", lab, GENERATED_MID, {GEN_MID_WIDTH, GEN_MID_BLOCK, GEN_MID_SHARED});
  return 0;
}
