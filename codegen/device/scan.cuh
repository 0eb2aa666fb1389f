// tessel/scan.cuh: the device side of chained scans (codegen/scan_codegen.cc writes the entry
// points): a block's exclusive scan of a tile held in rows, the hand-off of 8-byte values
// between blocks, the look-back that finds a tile's carry, and asynchronous copies that stage
// a tile in shared memory.
#pragma once

// The exclusive scan of R values per thread in row-major order over (row, thread): row r's
// values precede row r + 1's (a tile read in coalesced rows). In place; `scratch` holds
// max(32, R x warps); *total gets the whole block's. A fixed order: the same bits from run to run.
template <int R, typename T, typename Op>
__device__ __forceinline__ void tessel_block_exclusive_scan_rows(T (&v)[R], Op op, T identity,
                                                                 T* scratch, T* total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  T x[R];  // inclusive within the warp, per row
#pragma unroll
  for (int r = 0; r < R; ++r) x[r] = tessel_warp_inclusive_scan(v[r], op);
  __syncthreads();  // scratch may still be read from the previous scan
  if (lane == 31) {
#pragma unroll
    for (int r = 0; r < R; ++r) scratch[r * warps + warp] = x[r];
  }
  __syncthreads();
  const int n = R * warps;
  if (warp == 0 && n <= 32) {
    const T w = tessel_warp_inclusive_scan(lane < n ? scratch[lane] : identity, op);
    if (lane < n) scratch[lane] = w;
  } else if (warp == 0) {  // more than 32 partial sums: each lane folds `per` consecutive ones
    const int per = (n + 31) / 32, from = lane * per, to = min(from + per, n);
    T run = identity;
    for (int j = from; j < to; ++j) scratch[j] = run = j == from ? scratch[j] : op(run, scratch[j]);
    const T w = tessel_warp_inclusive_scan(from < to ? run : identity, op);
    const T before = __shfl_up_sync(0xffffffffu, w, 1);
    if (lane > 0) {
      for (int j = from; j < to; ++j) scratch[j] = op(before, scratch[j]);
    }
  }
  __syncthreads();
  *total = scratch[n - 1];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const T within = __shfl_up_sync(0xffffffffu, x[r], 1);
    const int slot = r * warps + warp;
    const T before = slot == 0 ? identity : scratch[slot - 1];
    v[r] = lane == 0 ? before : op(before, within);
  }
}
// Cross-block hand-off (chained scans): an 8-byte value goes out as two words, each with half
// of its bits and bit 32 set, in one relaxed 16-byte store. Each word is single-copy atomic, so
// a reader that sees both flags has the whole value: no fence on either side, one round trip
// (nothing else is handed over with the value). Slots start zeroed.
__device__ __forceinline__ unsigned long long tessel_bits64(double v) {
  return (unsigned long long)__double_as_longlong(v);
}
__device__ __forceinline__ unsigned long long tessel_bits64(long long v) {
  return (unsigned long long)v;
}
__device__ __forceinline__ void tessel_from_bits64(unsigned long long b, double* v) {
  *v = __longlong_as_double((long long)b);
}
__device__ __forceinline__ void tessel_from_bits64(unsigned long long b, long long* v) {
  *v = (long long)b;
}
template <typename T>
__device__ __forceinline__ void tessel_publish(unsigned long long* slot, T v) {
  const unsigned long long b = tessel_bits64(v);
  const unsigned long long lo = (1ull << 32) | (b & 0xffffffffull), hi = (1ull << 32) | (b >> 32);
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(slot), "l"(lo), "l"(hi)
               : "memory");
}
template <typename T>
__device__ __forceinline__ bool tessel_peek(const unsigned long long* slot, T* v) {
  unsigned long long lo, hi;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
               : "=l"(lo), "=l"(hi)
               : "l"(slot)
               : "memory");
  if (!((lo & hi) >> 32 & 1)) return false;
  tessel_from_bits64((hi << 32) | (lo & 0xffffffffull), v);
  return true;
}
template <typename T>
__device__ __forceinline__ T tessel_await(const unsigned long long* slot) {
  T v;
  while (!tessel_peek(slot, &v)) __nanosleep(32);
  return v;
}
// Warp 0's look-back (chained scans): the inclusive prefix of groups 0..group-1 of a line, from
// the groups' published aggregates and inclusive prefixes (slots as above). It folds forward
// from the nearest published prefix over the aggregates after it, so the result has the bits
// of the plain chain prefix(g) = prefix(g-1) + aggregate(g) wherever it starts: the same bits
// from run to run. It waits while the 32 groups before `group` hold no prefix.
template <typename T, typename Op>
__device__ T tessel_look_back(const unsigned long long* aggregates,
                              const unsigned long long* prefixes, long long group, Op op,
                              T identity) {
  const int lane = threadIdx.x & 31;
  const long long g = group - 1 - lane;
  for (;;) {
    T a = identity, p = identity;
    bool has_prefix = true, has_aggregate = true;
    if (g >= 0) {
      has_prefix = tessel_peek(prefixes + 2 * g, &p);
      has_aggregate = tessel_peek(aggregates + 2 * g, &a);
    }
    const unsigned with_prefix = __ballot_sync(0xffffffffu, has_prefix);
    const unsigned missing = __ballot_sync(0xffffffffu, !has_aggregate);
    const int first = __ffs(with_prefix) - 1;
    if (first >= 0 && (missing & ((1u << first) - 1u)) == 0) {
      const T v = lane == first ? p : a;
      // Constant source lanes (unrolled): a variable one made ptxas call a shuffle routine
      // that spilled for sm_80.
      T acc = identity;
#pragma unroll
      for (int q = 31; q >= 0; --q) {
        const T vq = __shfl_sync(0xffffffffu, v, q);
        if (q == first) acc = vq;
        if (q < first) acc = op(acc, vq);
      }
      return acc;
    }
    __nanosleep(32);
  }
}
// BYTES (4, 8, 16 or 32) from global to shared memory without passing through registers
// (cp.async): loads in flight hold no registers, so more of them fit on a multiprocessor.
// The copying thread sees them after tessel_copy_async_wait().
template <int BYTES>
__device__ __forceinline__ void tessel_copy_async(void* shared, const void* global) {
#if __CUDA_ARCH__ >= 800
  const unsigned to = (unsigned)__cvta_generic_to_shared(shared);
  if (BYTES == 32) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(global) : "memory");
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to + 16),
                 "l"((const char*)global + 16)
                 : "memory");
  } else if (BYTES == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(global) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(to), "l"(global), "n"(BYTES)
                 : "memory");
  }
#else
  for (int i = 0; i < BYTES / 4; ++i) ((unsigned*)shared)[i] = ((const unsigned*)global)[i];
#endif
}
__device__ __forceinline__ void tessel_copy_async_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}
