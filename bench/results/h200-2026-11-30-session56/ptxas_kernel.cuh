// tessel device prelude
typedef unsigned short bf16_t;
typedef unsigned short f16_t;
typedef unsigned char bool_t;

// Programmatic dependent launch (sm_90; nothing before): every kernel may be launched to
// start while the kernel before it on the stream still runs. Each thread waits for that
// kernel's completion and memory before it touches global memory; and once every block of
// this grid has started (or ended), the next kernel's blocks may take the resources it
// leaves free and run up to their own wait.
__device__ __forceinline__ void tessel_grid_dependency_wait() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void tessel_launch_dependents() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}
// The first statement of a kernel without a prologue of its own.
__device__ __forceinline__ void tessel_grid_begin() {
  tessel_launch_dependents();
  tessel_grid_dependency_wait();
}

__device__ __forceinline__ float tessel_bf16_to_float(bf16_t v) {
  return __uint_as_float(((unsigned)v) << 16);
}
__device__ __forceinline__ bf16_t tessel_float_to_bf16(float f) {
#if __CUDA_ARCH__ >= 800
  bf16_t h;  // one instruction: round to nearest even, NaN stays NaN
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#else
  unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (bf16_t)((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
  return (bf16_t)(u >> 16);
#endif
}
__device__ __forceinline__ float tessel_f16_to_float(f16_t v) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v));
  return f;
}
__device__ __forceinline__ f16_t tessel_float_to_f16(float f) {
  f16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
// d rounded toward zero to float, its last bit set where that was inexact: rounded again to
// 16 bits it gives d's one rounding (core/element.h: DoubleToFloatOdd).
__device__ __forceinline__ float tessel_double_to_float_odd(double d) {
  float r;
  asm("cvt.rz.f32.f64 %0, %1;" : "=f"(r) : "d"(d));
  return (double)r == d || d != d ? r : __int_as_float(__float_as_int(r) | 1);
}
__device__ __forceinline__ float tessel_round_bf16(float f) {
  return tessel_bf16_to_float(tessel_float_to_bf16(f));
}
__device__ __forceinline__ float tessel_round_f16(float f) {
  return tessel_f16_to_float(tessel_float_to_f16(f));
}
// Pairs of 16-bit values in 32-bit words, lane 2i in the low half (GEMM epilogues keep bf16
// and f16 values so: one instruction adds or multiplies two lanes). The pair operations
// round the exact result once, as the float path's round(float(a) op float(b)) does.
template <int N>
__device__ __forceinline__ float tessel_bf16_lane(const unsigned (&w)[N], int k) {
  return __uint_as_float((k & 1) ? (w[k >> 1] & 0xffff0000u) : (w[k >> 1] << 16));
}
template <int N>
__device__ __forceinline__ float tessel_f16_lane(const unsigned (&w)[N], int k) {
  return tessel_f16_to_float((f16_t)((k & 1) ? (w[k >> 1] >> 16) : (w[k >> 1] & 0xffffu)));
}
__device__ __forceinline__ unsigned tessel_pack_bf16(float lo, float hi) {
#if __CUDA_ARCH__ >= 800
  unsigned r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
#else
  return (unsigned)tessel_float_to_bf16(lo) | ((unsigned)tessel_float_to_bf16(hi) << 16);
#endif
}
__device__ __forceinline__ unsigned tessel_pack_f16(float lo, float hi) {
#if __CUDA_ARCH__ >= 800
  unsigned r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
#else
  return (unsigned)tessel_float_to_f16(lo) | ((unsigned)tessel_float_to_f16(hi) << 16);
#endif
}
#if __CUDA_ARCH__ >= 900
#define TESSEL_BF16X2_OP(NAME, OP)                                                     \
  __device__ __forceinline__ unsigned tessel_##NAME##_bf16x2(unsigned a, unsigned b) { \
    unsigned r;                                                                        \
    asm(#NAME ".rn.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                    \
    return r;                                                                          \
  }
#else
#define TESSEL_BF16X2_OP(NAME, OP)                                                     \
  __device__ __forceinline__ unsigned tessel_##NAME##_bf16x2(unsigned a, unsigned b) { \
    const unsigned w[2] = {a, b};                                                      \
    return tessel_pack_bf16(tessel_bf16_lane(w, 0) OP tessel_bf16_lane(w, 2),          \
                            tessel_bf16_lane(w, 1) OP tessel_bf16_lane(w, 3));         \
  }
#endif
#define TESSEL_F16X2_OP(NAME)                                                         \
  __device__ __forceinline__ unsigned tessel_##NAME##_f16x2(unsigned a, unsigned b) { \
    unsigned r;                                                                       \
    asm(#NAME ".rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                    \
    return r;                                                                         \
  }
TESSEL_BF16X2_OP(add, +)
TESSEL_BF16X2_OP(sub, -)
TESSEL_BF16X2_OP(mul, *)
TESSEL_F16X2_OP(add)
TESSEL_F16X2_OP(sub)
TESSEL_F16X2_OP(mul)
// f32 as TF32, its 10 leading mantissa bits (truncated): what a matmul recorded under
// MatmulPrecision::kTF32 multiplies, on tensor cores or not. wgmma reads f32 operands from
// shared memory so; the other kernels truncate to agree with it (and with the CPU backend).
// (A NaN whose payload lies only in the 13 dropped bits reads as an infinity where the
// tensor cores see the raw bits; the NaNs arithmetic makes are canonical.)
__device__ __forceinline__ float tessel_tf32(float f) {
  return isnan(f) ? f : __uint_as_float(__float_as_uint(f) & 0xffffe000u);
}
// f32 rounded to TF32 (to nearest, ties away from zero): the parts of three TF32 products
// (MatmulPrecision::kHigh), whose remainders hold what the rounding left.
__device__ __forceinline__ float tessel_round_tf32(float f) {
#if __CUDA_ARCH__ >= 800
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
  return __uint_as_float(r);
#else
  const unsigned u = __float_as_uint(f);
  return isfinite(f) ? __uint_as_float((u + 0x1000u) & 0xffffe000u) : f;
#endif
}
// 1/x by the hardware's approximate reciprocal (within 1 ulp; 0 for infinite x). Not
// .ftz: sigmoid(-88) is 6e-39, a subnormal the CPU keeps (fuzz seed 216303374).
__device__ __forceinline__ float tessel_rcp(float x) {
  float r;
  asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ int tessel_float_to_int(float f) {
  // Saturating, NaN to 0: the CPU backend's rule.
  if (f != f) return 0;
  if (f >= 2147483647.0f) return 2147483647;
  if (f <= -2147483648.0f) return (-2147483647 - 1);
  return (int)f;
}
// Any float or double to an integer type, saturating, NaN to 0 (the CPU backend's rule).
template <typename T, typename F>
__device__ __forceinline__ T tessel_saturate(F f) {
  const T lowest = (T)(1ull << (sizeof(T) * 8 - 1)), highest = ~lowest;
  if (f != f) return 0;
  if (f >= (F)highest) return highest;
  if (f <= (F)lowest) return lowest;
  return (T)f;
}
// An out-of-range index at row-major `position` of a gather: the record `bad` (three words:
// key, index value, lock; zeroed before the launch) keeps the first position over all
// threads (the largest key ~position), with its value, so that realize names what the CPU
// backend names. Only bad indices get here: the lock costs nothing on the usual path. Inlined:
// a call from a Hopper GEMM's epilogue (warp groups with setmaxnreg) failed ptxas (seed 9723005).
__device__ __forceinline__ void tessel_report_index(unsigned long long* bad, long long position,
                                                    long long value) {
  const unsigned long long key = ~(unsigned long long)position;
  if (atomicMax(bad, key) >= key) return;  // an earlier position is already recorded
  while (atomicCAS(bad + 2, 0ull, 1ull) != 0ull) {
  }
  // Whoever holds the first position when it takes the lock writes the value; a later
  // holder of a later position sees a key that is not its own.
  if (atomicAdd(bad, 0ull) == key) bad[1] = (unsigned long long)value;
  __threadfence();
  atomicExch(bad + 2, 0ull);
}
// NaN-propagating maximum and minimum (fmaxf drops NaN). sm_80 has them as one instruction;
// the compare-and-select takes three, which a long row's max pays per element.
__device__ __forceinline__ float tessel_max(float a, float b) {
#if __CUDA_ARCH__ >= 800
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return (a != a || b != b) ? __int_as_float(0x7fc00000) : fmaxf(a, b);
#endif
}
__device__ __forceinline__ float tessel_min(float a, float b) {
#if __CUDA_ARCH__ >= 800
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return (a != a || b != b) ? __int_as_float(0x7fc00000) : fminf(a, b);
#endif
}
// 2^x as one MUFU.EX2: exp2f keeps results below 2^-126 (denormals) at the cost of a compare
// and two predicated multiplies around it, three instructions of an attention kernel's ~14 an
// element. Such terms weigh nothing beside a sum of at least 1.
__device__ __forceinline__ float tessel_exp2_ftz(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
// exp(y - h) for the terms of an online sum (tessel_exp_term: of t = y - h already computed,
// a staged normalization's terms, codegen/normalization_term.h): one FADD, one FMUL and one
// MUFU.EX2 where expf takes ten instructions (cross-entropy over bf16 rows was issue-bound
// so; long bf16 columns 11%, bench/RESULTS.md, thirty-ninth session). y - h is exact
// for the terms that weigh (y near h). Folding h into one FFMA, y log2(e) - h log2(e), is an
// instruction less (4% of cross-entropy over 32000 bf16 classes) but rounds h log2(e), by up
// to half its ulp in every exponent: 2^(1e12) at h = 9e18 (fuzz seed 33002196), and already
// 2^(2^-14) at h = 1000, where the sum is the result (a logsumexp), not normalized away as
// in attention. ex2.approx's relative error is about 2^-22; results below 2^-126 flush to 0
// beside a sum of at least 1.
__device__ __forceinline__ float tessel_exp_term(float t) {
  return tessel_exp2_ftz(t * 1.4426950408889634f);
}
__device__ __forceinline__ float tessel_exp_shifted(float y, float h) {
  return tessel_exp_term(y - h);
}
__device__ __forceinline__ double tessel_max(double a, double b) {
  return (a != a || b != b) ? __longlong_as_double(0x7ff8000000000000ll) : fmax(a, b);
}
__device__ __forceinline__ double tessel_min(double a, double b) {
  return (a != a || b != b) ? __longlong_as_double(0x7ff8000000000000ll) : fmin(a, b);
}
__device__ __forceinline__ int tessel_max(int a, int b) { return a > b ? a : b; }
__device__ __forceinline__ int tessel_min(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ long long tessel_max(long long a, long long b) { return a > b ? a : b; }
__device__ __forceinline__ long long tessel_min(long long a, long long b) { return a < b ? a : b; }
__device__ __forceinline__ bool tessel_max(bool a, bool b) { return a || b; }
__device__ __forceinline__ bool tessel_min(bool a, bool b) { return a && b; }
// Integer power by squaring, wrapping (int in 32 bits, long long in 64).
template <typename T, typename U>
__device__ __forceinline__ T tessel_ipow_wrapping(T base, T e) {
  if (e < 0) return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;
  U r = 1, b = (U)base;
  for (; e > 0; e >>= 1, b *= b) {
    if (e & 1) r *= b;
  }
  return (T)r;
}
__device__ __forceinline__ int tessel_ipow(int base, int e) {
  return tessel_ipow_wrapping<int, unsigned>(base, e);
}
__device__ __forceinline__ long long tessel_ipow(long long base, long long e) {
  return tessel_ipow_wrapping<long long, unsigned long long>(base, e);
}
// sign (NaN stays NaN), C's fmod and Python's remainder; an integer divisor of 0 gives 0, as
// in ops/cpu (and -1 gives 0 without INT_MIN % -1, which traps).
__device__ __forceinline__ float tessel_sign(float a) {
  return a != a ? a : (float)((0.0f < a) - (a < 0.0f));
}
__device__ __forceinline__ double tessel_sign(double a) {
  return a != a ? a : (double)((0.0 < a) - (a < 0.0));
}
__device__ __forceinline__ int tessel_sign(int a) { return (0 < a) - (a < 0); }
__device__ __forceinline__ long long tessel_sign(long long a) { return (0 < a) - (a < 0); }
__device__ __forceinline__ float tessel_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double tessel_fmod(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ int tessel_fmod(int a, int b) { return b == 0 || b == -1 ? 0 : a % b; }
__device__ __forceinline__ long long tessel_fmod(long long a, long long b) {
  return b == 0 || b == -1 ? 0 : a % b;
}
template <typename T>
__device__ __forceinline__ T tessel_remainder(T a, T b) {
  const T r = tessel_fmod(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}
__device__ __forceinline__ int tessel_iadd(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int tessel_isub(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
__device__ __forceinline__ int tessel_imul(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
typedef unsigned long long tessel_u64;
__device__ __forceinline__ long long tessel_iadd(long long a, long long b) {
  return (long long)((tessel_u64)a + (tessel_u64)b);
}
__device__ __forceinline__ long long tessel_isub(long long a, long long b) {
  return (long long)((tessel_u64)a - (tessel_u64)b);
}
__device__ __forceinline__ long long tessel_imul(long long a, long long b) {
  return (long long)((tessel_u64)a * (tessel_u64)b);
}

// Philox-4x32-10 for rand/randn: ops/philox.h is the specification.
__device__ __forceinline__ uint4 tessel_philox(unsigned long long seed, unsigned long long i) {
  // The counter, opaque to NVVM's loop analysis: in a loop of an odd trip count of 7 or more
  // (a column cumsum of rand over 31 rows), NVRTC 13.0 strength-reduced the exit test onto
  // the first round's product of the counter, unrolled by 2, and dropped the exit: the loop
  // wrote past its output until it faulted (fuzz seed 42008079).
  asm("" : "+l"(i));
  unsigned c0 = (unsigned)i, c1 = (unsigned)(i >> 32), c2 = 0, c3 = 0;
  unsigned k0 = (unsigned)seed, k1 = (unsigned)(seed >> 32);
#pragma unroll
  for (int r = 0; r < 10; ++r) {
    const unsigned hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    const unsigned hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return make_uint4(c0, c1, c2, c3);
}
__device__ __forceinline__ float tessel_rand(unsigned long long seed, unsigned long long i) {
  return (float)(tessel_philox(seed, i).x >> 8) * (1.0f / 16777216.0f);
}
__device__ __forceinline__ float tessel_randn(unsigned long long seed, unsigned long long i) {
  const uint4 r = tessel_philox(seed, i);
  const float u1 = (float)((r.x >> 8) + 1) * (1.0f / 16777216.0f);
  const float u2 = (float)(r.y >> 8) * (1.0f / 16777216.0f);
  return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}

// 16 bytes from global to shared memory, zeros where !inside, without holding registers:
// cp.async from sm_80 (tessel_copy_async_wait_all waits for this thread's copies), a copy
// through registers before.
__device__ __forceinline__ void tessel_copy_16_async(void* dst, const void* src, bool inside) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
               :: "r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src), "r"(inside ? 16 : 0)
               : "memory");
#else
  *(uint4*)dst = inside ? *(const uint4*)src : make_uint4(0u, 0u, 0u, 0u);
#endif
}
// 4 bytes from global to shared memory, the same way (a column's lanes staged a thread each).
__device__ __forceinline__ void tessel_copy_4_async(void* dst, const void* src) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;"
               :: "r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src) : "memory");
#else
  *(unsigned*)dst = *(const unsigned*)src;
#endif
}
__device__ __forceinline__ void tessel_copy_async_wait_all() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// N contiguous elements in one access (N * sizeof(T) bytes, aligned to that).
template <typename T, int N>
struct alignas(sizeof(T) * N) tessel_vec {
  T v[N];
};
template <typename T, int N>
__device__ __forceinline__ tessel_vec<T, N> tessel_load_vec(const T* p) {
  return *reinterpret_cast<const tessel_vec<T, N>*>(p);
}
template <typename T, int N>
__device__ __forceinline__ void tessel_store_vec(T* p, const tessel_vec<T, N>& v) {
  *reinterpret_cast<tessel_vec<T, N>*>(p) = v;
}

// Block-wide reductions in a fixed order (warp butterflies, then warp 0 over the warps):
// the same input gives the same bits. `scratch` holds 32 values; every thread gets the result.
struct tessel_sum_op {
  template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct tessel_isum_op {
  template <typename T> __device__ T operator()(T a, T b) const { return tessel_iadd(a, b); }
};
struct tessel_prod_op {
  template <typename T> __device__ T operator()(T a, T b) const { return a * b; }
};
struct tessel_iprod_op {
  template <typename T> __device__ T operator()(T a, T b) const { return tessel_imul(a, b); }
};
struct tessel_max_op {
  template <typename T> __device__ T operator()(T a, T b) const { return tessel_max(a, b); }
};
struct tessel_min_op {
  template <typename T> __device__ T operator()(T a, T b) const { return tessel_min(a, b); }
};
template <typename T, typename Op>
__device__ __forceinline__ T tessel_warp_reduce(T v, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}
template <typename T, typename Op>
__device__ __forceinline__ T tessel_block_reduce(T v, Op op, T identity, T* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  v = tessel_warp_reduce(v, op);
  __syncthreads();  // scratch may still be read from the previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : identity;
  return tessel_warp_reduce(v, op);
}
// Thread-block clusters (a row shared by the blocks of a cluster, sm_90): every thread of
// every block arrives; memory written before is visible to the cluster after. (Declared for
// every target, as nvcc's host pass parses kernel bodies; only sm_90 kernels call them.)
// The barrier in two halves: between them a block may work on what it holds, as the blocks
// that arrive late catch up.
__device__ __forceinline__ void tessel_cluster_arrive() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#else
  __trap();
#endif
}
__device__ __forceinline__ void tessel_cluster_wait() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
  __trap();
#endif
}
__device__ __forceinline__ void tessel_cluster_sync() {
  tessel_cluster_arrive();
  tessel_cluster_wait();
}
// `slot` (in this block's shared memory) as block `rank` of the cluster holds it.
__device__ __forceinline__ unsigned tessel_cluster_address(const void* slot, unsigned rank) {
  unsigned remote = 0;
#if __CUDA_ARCH__ >= 900
  const unsigned local = (unsigned)__cvta_generic_to_shared(slot);
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
#endif
  return remote;
}
#if __CUDA_ARCH__ >= 900
#define TESSEL_CLUSTER_LOAD(T, PTX, C)                                                  \
  __device__ __forceinline__ T tessel_cluster_load(const T* slot, unsigned rank) {      \
    T v;                                                                                \
    asm volatile("ld.shared::cluster." PTX " %0, [%1];" : "=" C(v)                      \
                 : "r"(tessel_cluster_address(slot, rank)) : "memory");                 \
    return v;                                                                           \
  }
#else
#define TESSEL_CLUSTER_LOAD(T, PTX, C) \
  __device__ __forceinline__ T tessel_cluster_load(const T* slot, unsigned) { return *slot; }
#endif
TESSEL_CLUSTER_LOAD(float, "f32", "f")
TESSEL_CLUSTER_LOAD(double, "f64", "d")
TESSEL_CLUSTER_LOAD(int, "s32", "r")
TESSEL_CLUSTER_LOAD(long long, "s64", "l")
// The cluster-wide reduction of `v`, per column: `width` values a block (1 for a row; thread
// t holds column t % width's block-wide value), each combined over the cluster's kBlocks
// blocks in rank order, so every block gets the same bits. `slots`: 2 x width shared values
// of this reduction's own: [0, width) this block's values, read by the others (a later
// reduction may not overwrite them before they have: the kernel arrives at a last barrier
// after its last reduction and waits there before it ends), [width, 2 width) the results.
template <int kBlocks, typename T, typename Op>
__device__ __forceinline__ T tessel_cluster_reduce(T v, Op op, T* slots, int width) {
  if (threadIdx.x < width) slots[threadIdx.x] = v;
  tessel_cluster_sync();
  if (threadIdx.x < width) {
    T parts[kBlocks];  // loaded together: one remote latency, not kBlocks
#pragma unroll
    for (int b = 0; b < kBlocks; ++b) parts[b] = tessel_cluster_load(slots + threadIdx.x, b);
    T r = parts[0];
#pragma unroll
    for (int b = 1; b < kBlocks; ++b) r = op(r, parts[b]);
    slots[width + threadIdx.x] = r;
  }
  __syncthreads();
  return slots[width + threadIdx.x % width];
}
// The inclusive scan of the warp's values in lane order, in a fixed order.
template <typename T, typename Op>
__device__ __forceinline__ T tessel_warp_inclusive_scan(T x, Op op) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x = op(y, x);
  }
  return x;
}
// The exclusive scan of the block's values in thread order (warp scans, then warp 0 over
// the warps' totals), in a fixed order; *total gets the whole block's. `scratch` holds 32.
template <typename T, typename Op>
__device__ __forceinline__ T tessel_block_exclusive_scan(T v, Op op, T identity, T* scratch,
                                                         T* total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  const T x = tessel_warp_inclusive_scan(v, op);
  __syncthreads();  // scratch may still be read from the previous scan
  if (lane == 31) scratch[warp] = x;
  __syncthreads();
  if (warp == 0) {
    const T w = tessel_warp_inclusive_scan(lane < warps ? scratch[lane] : identity, op);
    if (lane < warps) scratch[lane] = w;
  }
  __syncthreads();
  *total = scratch[warps - 1];
  const T within = __shfl_up_sync(0xffffffffu, x, 1);
  if (lane == 0) return warp == 0 ? identity : scratch[warp - 1];
  return warp == 0 ? within : op(scratch[warp - 1], within);
}
// The same for a pair (m, s) that `combine(m, s, m2, s2)` merges in place (an online max and
// sum: codegen/streaming_reduction.cc); warp 0 ends with the block's pair.
template <typename T, typename Combine>
__device__ __forceinline__ void tessel_block_reduce_pair(T& m, T& s, Combine combine, T m_identity,
                                                         T* scratch_m, T* scratch_s) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    combine(m, s, __shfl_xor_sync(0xffffffffu, m, offset), __shfl_xor_sync(0xffffffffu, s, offset));
  }
  __syncthreads();
  if (lane == 0) {
    scratch_m[warp] = m;
    scratch_s[warp] = s;
  }
  __syncthreads();
  m = lane < warps ? scratch_m[lane] : m_identity;
  s = lane < warps ? scratch_s[lane] : (T)0;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    combine(m, s, __shfl_xor_sync(0xffffffffu, m, offset), __shfl_xor_sync(0xffffffffu, s, offset));
  }
}

typedef int index_t;

extern "C" __global__ void __launch_bounds__(96) N_abs_log1p_logical_not_max_5e63dd56(const bf16_t* in0, const bool_t* in1, float* __restrict__ out0) {
  tessel_grid_begin();
  // 66 columns of 34: 32 a block; 3 threads x 12 lanes hold a column
  __shared__ float parts[99];
  const int column = threadIdx.x % 32, part = threadIdx.x / 32;
  const index_t first = (index_t)blockIdx.x * 32 + column;
  const bool valid = first < 66;
  const index_t row = valid ? first : 65;
  auto col = [part](int k) -> index_t { return part + (index_t)k * 3; };
  float in0_0[12];
  #pragma unroll
  for (int k = 0; k < 12; ++k) in0_0[k] = (col(k) < 34 ? tessel_bf16_to_float(in0[(col(k) * 66 + row)]) : 0);
  float abs0[12];
  #pragma unroll
  for (int k = 0; k < 12; ++k) abs0[k] = fabsf(in0_0[k]);
  float log1p0[12];
  #pragma unroll
  for (int k = 0; k < 12; ++k) log1p0[k] = tessel_round_bf16(log1pf(abs0[k]));
  bool logical_not0[12];
  #pragma unroll
  for (int k = 0; k < 12; ++k) logical_not0[k] = (log1p0[k] == 0);
  int acc0 = (-2147483647 - 1);
  #pragma unroll
  for (int k = 0; k < 12; ++k) if (col(k) < 34) acc0 = tessel_max(acc0, (int)logical_not0[k]);
  ((int*)parts)[threadIdx.x / 32 * 33 + threadIdx.x % 32] = acc0;
  __syncthreads();
  acc0 = ((int*)parts)[column];
  for (int p = 1; p < 3; ++p) acc0 = tessel_max(acc0, ((int*)parts)[p * 33 + column]);
  const bool max0 = (acc0 != 0);
  bool in1_0[12];
  #pragma unroll
  for (int k = 0; k < 12; ++k) in1_0[k] = (col(k) < 34 ? (in1[(col(k) * 66 + row)] != 0) : 0);
  bool where0[12];
  #pragma unroll
  for (int k = 0; k < 12; ++k) where0[k] = (logical_not0[k] ? max0 : in1_0[k]);
  float cvt0[12];
  #pragma unroll
  for (int k = 0; k < 12; ++k) cvt0[k] = (float)where0[k];
  float acc1 = __int_as_float(0xff800000);
  #pragma unroll
  for (int k = 0; k < 12; ++k) if (col(k) < 34) acc1 = tessel_max(acc1, (float)cvt0[k]);
  __syncthreads();  // the last accumulator's parts are read
  ((float*)parts)[threadIdx.x / 32 * 33 + threadIdx.x % 32] = acc1;
  __syncthreads();
  acc1 = ((float*)parts)[column];
  for (int p = 1; p < 3; ++p) acc1 = tessel_max(acc1, ((float*)parts)[p * 33 + column]);
  const float max1 = acc1;
  float sub0[12];
  #pragma unroll
  for (int k = 0; k < 12; ++k) sub0[k] = (cvt0[k] - max1);
  #pragma unroll
  for (int k = 0; k < 12; ++k) if (valid && col(k) < 34) out0[(col(k) * 66 + row)] = sub0[k];
}
