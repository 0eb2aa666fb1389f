// tessel device library: one small wrapper per PTX instruction the GEMM kernels use.
// Handed to NVRTC as the named header "tessel/ptx.cuh"; sm_90a unless marked otherwise.
#pragma once

// A 128-byte, 64-byte-aligned TMA descriptor (CUtensorMap), encoded on the host per launch
// and passed as a `const __grid_constant__` kernel parameter.
struct alignas(64) tessel_tensor_map {
  unsigned long long opaque[16];
};

__device__ __forceinline__ unsigned tessel_smem(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

// A shared-memory load by 32-bit address. Volatile without a memory clobber: it keeps its
// order against the barrier wrappers (also volatile asm) while the compiler stays free to
// move global loads and stores around it.
__device__ __forceinline__ unsigned tessel_ld_shared_u16(unsigned address) {
  unsigned short v;
  asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"(address));
  return v;
}
__device__ __forceinline__ unsigned tessel_ld_shared_u32(unsigned address) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(address));
  return v;
}
__device__ __forceinline__ uint4 tessel_ld_shared_v4(unsigned address) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(address));
  return v;
}

// Four 8x8 16-bit matrices to shared memory: lane 8 m + r gives the address of row r of
// matrix m; register m of lane 4 r + w holds its columns 2w, 2w + 1 (the mma accumulator
// layout). sm_90.
__device__ __forceinline__ void tessel_stmatrix_x4(unsigned address, unsigned r0, unsigned r1,
                                                   unsigned r2, unsigned r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(address),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3));
}
// The same with each 8x8 matrix stored transposed: lane 8 m + r addresses row r of matrix m as
// stored, which receives column r of the fragment.
__device__ __forceinline__ void tessel_stmatrix_x4_trans(unsigned address, unsigned r0, unsigned r1,
                                                         unsigned r2, unsigned r3) {
  asm volatile(
      "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(address),
      "r"(r0), "r"(r1), "r"(r2), "r"(r3));
}
// ---- cp.async, ldmatrix, mma.sync (sm_80) ---------------------------------------------------
// (The 16-byte copy itself, tessel_copy_16_async, is in the prelude: the portable GEMM uses it
// too, without this header.)
__device__ __forceinline__ void tessel_cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
// Waits until at most N of this thread's committed copy groups are in flight.
template <int N>
__device__ __forceinline__ void tessel_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
// Four 8x8 16-bit matrices; lane l gives the address of row l % 8 of matrix l / 8.
__device__ __forceinline__ void tessel_ldmatrix_x4(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(tessel_smem(p)));
}
__device__ __forceinline__ void tessel_ldmatrix_x4_trans(unsigned (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(tessel_smem(p)));
}
// d (16x8 f32) += a (16x16) x b (16x8), bf16 or f16 operands.
#define TESSEL_MMA_16816(TYPE)                                                   \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." #TYPE "." #TYPE          \
               ".f32 "                                                           \
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                  \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
template <bool F16>
__device__ __forceinline__ void tessel_mma_16816(float* d, const unsigned (&a)[4],
                                                 const unsigned (&b)[2]) {
  if constexpr (F16) {
    TESSEL_MMA_16816(f16);
  } else {
    TESSEL_MMA_16816(bf16);
  }
}

// d (16x8 f32) += a (16x8) x b (8x8), TF32 operands.
__device__ __forceinline__ void tessel_mma_1688_tf32(float* d, const unsigned (&a)[4],
                                                     const unsigned (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// ---- mbarrier (sm_90) --------------------------------------------------------------------
__device__ __forceinline__ void tessel_mbar_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(tessel_smem(bar)), "r"(count));
}
// Makes initialized barriers visible to the async proxy (TMA) before first use.
__device__ __forceinline__ void tessel_fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void tessel_mbar_arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(tessel_smem(bar)) : "memory");
}
// Arrives and announces `bytes` of TMA transactions that complete the phase.
__device__ __forceinline__ void tessel_mbar_arrive_expect_tx(unsigned long long* bar,
                                                             unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(tessel_smem(bar)),
               "r"(bytes)
               : "memory");
}
// Blocks until the phase of parity `parity` has completed.
__device__ __forceinline__ void tessel_mbar_wait(unsigned long long* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(tessel_smem(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

// ---- TMA (sm_90) ---------------------------------------------------------------------------
// Loads the box at (c0 innermost, c1, c2) into `dst`; completes `bytes` on `bar`.
__device__ __forceinline__ void tessel_tma_load_3d(void* dst, const tessel_tensor_map* map,
                                                   unsigned long long* bar, int c0, int c1,
                                                   int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(tessel_smem(dst)),
      "l"((unsigned long long)map), "r"(tessel_smem(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

// The same with an L2 eviction policy for the box's lines (made by the functions below).
__device__ __forceinline__ void tessel_tma_load_3d_hint(void* dst, const tessel_tensor_map* map,
                                                        unsigned long long* bar, int c0, int c1,
                                                        int c2, unsigned long long policy) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".L2::cache_hint [%0], [%1, {%3, %4, %5}], [%2], %6;" ::"r"(tessel_smem(dst)),
      "l"((unsigned long long)map), "r"(tessel_smem(bar)), "r"(c0), "r"(c1), "r"(c2), "l"(policy)
      : "memory");
}
__device__ __forceinline__ unsigned long long tessel_l2_policy_evict_last() {
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}
__device__ __forceinline__ unsigned long long tessel_l2_policy_evict_first() {
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// The same through a 5-D map: a view's rows and up to three batch axes at strides of their own.
__device__ __forceinline__ void tessel_tma_load_5d(void* dst, const tessel_tensor_map* map,
                                                   unsigned long long* bar, int c0, int c1, int c2,
                                                   int c3, int c4) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6, %7}], [%2];" ::"r"(tessel_smem(dst)),
      "l"((unsigned long long)map), "r"(tessel_smem(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3),
      "r"(c4)
      : "memory");
}

// Asks L2 to hold the box at (c0 innermost, c1, c2): a hint, which writes and reads elsewhere
// keep coherent, so it may run before the kernel's grid dependency wait.
__device__ __forceinline__ void tessel_tma_prefetch_3d(const tessel_tensor_map* map, int c0, int c1,
                                                       int c2) {
  asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];" ::"l"(
                   (unsigned long long)map),
               "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

// Stores the box at (c0 innermost, c1, c2) from `src`; out-of-bounds parts are clipped.
__device__ __forceinline__ void tessel_tma_store_3d(const tessel_tensor_map* map, const void* src,
                                                    int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
          (unsigned long long)map),
      "r"(tessel_smem(src)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
__device__ __forceinline__ void tessel_bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Waits until at most N committed bulk stores are still reading shared memory.
template <int N>
__device__ __forceinline__ void tessel_bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
// Orders this thread's ordinary shared-memory writes before later async-proxy (TMA) reads.
__device__ __forceinline__ void tessel_fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// A tag of this launch, never 0, from %gridid (the context's temporal grid launch number):
// a word that memory written by any earlier launch holds only by a 2^-31 chance.
__device__ __forceinline__ unsigned tessel_launch_tag() {
  unsigned long long grid;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(grid));
  return (unsigned)(grid ^ (grid >> 32)) | 0x80000000u;
}
// The atomics of tessel_tagged_count: relaxed, or acquire-release at gpu scope (kAcqRel), which
// orders the writes before it (a CTA barrier's included) and the reads after it as the fences
// around a relaxed one would, in one operation (one L2 round trip fewer on a critical path).
template <bool kAcqRel>
__device__ __forceinline__ unsigned long long tessel_atomic_add(unsigned long long* p) {
  if constexpr (!kAcqRel) return atomicAdd(p, 1ull);
  unsigned long long old;
  asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;" : "=l"(old) : "l"(p) : "memory");
  return old;
}
template <bool kAcqRel>
__device__ __forceinline__ unsigned long long tessel_atomic_cas(unsigned long long* p,
                                                                unsigned long long expected,
                                                                unsigned long long desired) {
  if constexpr (!kAcqRel) return atomicCAS(p, expected, desired);
  unsigned long long old;
  asm volatile("atom.acq_rel.gpu.global.cas.b64 %0, [%1], %2, %3;"
               : "=l"(old)
               : "l"(p), "l"(expected), "l"(desired)
               : "memory");
  return old;
}
// Adds 1 to a count of this launch's that `counter` holds over its tag (tessel_launch_tag) and
// returns the count before: whatever an earlier launch or another kernel left there counts as
// 0, so that no launch before has to zero it. One compare-and-swap puts the tag in place;
// the other adds are atomicAdd, which blocks adding at once do not retry (a compare-and-swap
// loop for every add cost a decode's 1024 tickets 0.2 us each, one after another). The last of
// `total` adds sets the counter back to 0: a CUDA graph's replays of a launch have the same
// tag (%gridid). `seen`: the counter as read earlier in this launch, before this add (one that
// holds the tag already saves a round trip; a value from before the last add's reset would not
// be right).
template <bool kAcqRel = false>
__device__ __forceinline__ unsigned tessel_tagged_count(unsigned long long* counter, unsigned total,
                                                        unsigned long long seen) {
  const unsigned long long tag = (unsigned long long)tessel_launch_tag() << 32;
  unsigned count;
  for (;;) {
    if ((seen & 0xffffffff00000000ull) == tag) {  // the tag stays until the last add
      count = (unsigned)tessel_atomic_add<kAcqRel>(counter);
      break;
    }
    const unsigned long long was = tessel_atomic_cas<kAcqRel>(counter, seen, tag | 1u);
    if (was == seen) {
      count = 0;
      break;
    }
    seen = was;
  }
  if (count + 1 == total) *(volatile unsigned long long*)counter = 0;
  return count;
}
__device__ __forceinline__ unsigned tessel_tagged_count(unsigned long long* counter,
                                                        unsigned total) {
  return tessel_tagged_count(counter, total, *(volatile unsigned long long*)counter);
}
// Barrier `id` (1-15; 0 is __syncthreads) over `threads` threads.
__device__ __forceinline__ void tessel_named_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// Arrives at barrier `id` without waiting: the `threads` count includes the arrivals.
__device__ __forceinline__ void tessel_named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---- register budget (sm_90a) ---------------------------------------------------------------
// Only honoured with __launch_bounds__(threads, 1) and each role in its own branch.
template <int REGISTERS>
__device__ __forceinline__ void tessel_setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGISTERS));
}
template <int REGISTERS>
__device__ __forceinline__ void tessel_setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGISTERS));
}

// ---- wgmma (sm_90a) ------------------------------------------------------------------------
// Orders earlier register writes (accumulators) before the next wgmma reads them.
__device__ __forceinline__ void tessel_wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void tessel_wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most N committed groups are still running.
template <int N>
__device__ __forceinline__ void tessel_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// The shared-memory matrix descriptor for a 128-byte-swizzled operand (bits: 0-13 start
// address >> 4, 16-29 leading byte offset >> 4, 32-45 stride byte offset >> 4, 62-63 swizzle
// mode 1 = 128 B). Stage buffers are 1024-byte aligned, so the base offset is 0.
__device__ __forceinline__ unsigned long long tessel_wgmma_desc(unsigned smem_address,
                                                                unsigned leading_bytes,
                                                                unsigned stride_bytes) {
  return (unsigned long long)((smem_address & 0x3FFFF) >> 4) |
         ((unsigned long long)(leading_bytes >> 4) << 16) |
         ((unsigned long long)(stride_bytes >> 4) << 32) | (1ull << 62);
}

// `x`, which ptxas can no longer see through: a descriptor advanced in a loop then costs one
// add, where ptxas otherwise folds the advance into the address and masks the field again.
__device__ __forceinline__ unsigned long long tessel_opaque(unsigned long long x) {
  asm volatile("" : "+l"(x));
  return x;
}

// The descriptor of the operand `bytes` further on. Only the start address field (bits 0-13:
// the address / 16) grows, and shared memory ends below 256 KB, so it never carries out: one
// 32-bit add where building the descriptor again takes six instructions (an attention tile's
// sixteen wgmmas spent ~100 issue slots of ~730 so).
__device__ __forceinline__ unsigned long long tessel_wgmma_desc_advance(unsigned long long desc,
                                                                        unsigned bytes) {
  return (desc & 0xFFFFFFFF00000000ull) | (unsigned)((unsigned)desc + (bytes >> 4));
}

// D (f32, m64 x N, R = N/2 registers per thread) += A x B, both operands in shared memory.
// TRANS_A/TRANS_B: 0 K-major, 1 MN-major. `accumulate` 0 overwrites D.
#define TESSEL_WGMMA_REGS_128                                                                   \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"                       \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"             \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"             \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"             \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"             \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"             \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111," \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define TESSEL_WGMMA_OUTS_128                                                                     \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),  \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),  \
      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),  \
      "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),  \
      "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),  \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]),  \
      "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),  \
      "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]),  \
      "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),  \
      "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]),  \
      "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]),          \
      "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]),         \
      "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]),         \
      "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]),         \
      "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// m64n176: attention's key tiles without masks (attention_sm90.cuh's BK).
#define TESSEL_WGMMA_REGS_88                                                                   \
  TESSEL_WGMMA_REGS_64                                                                         \
  ", "                                                                                         \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, " \
  "%82, %83, %84, %85, %86, %87"
#define TESSEL_WGMMA_OUTS_88                                                                     \
  TESSEL_WGMMA_OUTS_64, "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]),         \
      "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), \
      "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), \
      "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])

#define TESSEL_WGMMA_REGS_64                                                        \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define TESSEL_WGMMA_OUTS_64                                                                      \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),  \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),  \
      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),  \
      "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),  \
      "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

// m64n80: attention's key tiles at D = 256.
#define TESSEL_WGMMA_REGS_40 TESSEL_WGMMA_REGS_32 ", %32, %33, %34, %35, %36, %37, %38, %39"
#define TESSEL_WGMMA_OUTS_40                                                             \
  TESSEL_WGMMA_OUTS_32, "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), \
      "+f"(d[37]), "+f"(d[38]), "+f"(d[39])

#define TESSEL_WGMMA_REGS_32                                              \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define TESSEL_WGMMA_OUTS_32                                                                      \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31])

#define TESSEL_WGMMA_REGS_16 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
#define TESSEL_WGMMA_OUTS_16                                                                      \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15])
#define TESSEL_WGMMA_REGS_8 "%0, %1, %2, %3, %4, %5, %6, %7"
#define TESSEL_WGMMA_OUTS_8 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])

// Operand numbers after the R accumulators: A, B (descriptors), ACC (flag), TA, TB.
#define TESSEL_WGMMA_ASM(N, TYPE, R, A, B, ACC, TA, TB)                                            \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #ACC                                           \
               ", 0;\n"                                                                            \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." #TYPE "." #TYPE                   \
               " {" TESSEL_WGMMA_REGS_##R "}, %" #A ", %" #B ", p, 1, 1, %" #TA ", %" #TB ";\n}\n" \
               : TESSEL_WGMMA_OUTS_##R                                                             \
               : "l"(a), "l"(b), "r"(accumulate), "n"(TRANS_A), "n"(TRANS_B))

#define TESSEL_DEFINE_WGMMA(N, R, A, B, ACC, TA, TB)                                   \
  template <bool F16, int TRANS_A, int TRANS_B>                                        \
  __device__ __forceinline__ void tessel_wgmma(float(&d)[R], unsigned long long a,     \
                                               unsigned long long b, int accumulate) { \
    if constexpr (F16) {                                                               \
      TESSEL_WGMMA_ASM(N, f16, R, A, B, ACC, TA, TB);                                  \
    } else {                                                                           \
      TESSEL_WGMMA_ASM(N, bf16, R, A, B, ACC, TA, TB);                                 \
    }                                                                                  \
  }

TESSEL_DEFINE_WGMMA(256, 128, 128, 129, 130, 131, 132)
TESSEL_DEFINE_WGMMA(176, 88, 88, 89, 90, 91, 92)
TESSEL_DEFINE_WGMMA(128, 64, 64, 65, 66, 67, 68)
TESSEL_DEFINE_WGMMA(80, 40, 40, 41, 42, 43, 44)
TESSEL_DEFINE_WGMMA(64, 32, 32, 33, 34, 35, 36)
// (n32 and n16: the GEMM's few-row tiles, whose rows are wgmma's N; gemm_sm90.cuh's SWAP.)
TESSEL_DEFINE_WGMMA(32, 16, 16, 17, 18, 19, 20)
TESSEL_DEFINE_WGMMA(16, 8, 8, 9, 10, 11, 12)

// The same on TF32 operands (f32 in shared memory, read as TF32: both K-major, the only
// layout wgmma takes for 32-bit operands), k8 per instruction.
#define TESSEL_DEFINE_WGMMA_TF32(N, R, A, B, ACC)                                                  \
  __device__ __forceinline__ void tessel_wgmma_tf32(float(&d)[R], unsigned long long a,            \
                                                    unsigned long long b, int accumulate) {        \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #ACC                                         \
                 ", 0;\n"                                                                          \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k8.f32.tf32.tf32 {" TESSEL_WGMMA_REGS_##R \
                 "}, %" #A ", %" #B ", p, 1, 1;\n}\n"                                              \
                 : TESSEL_WGMMA_OUTS_##R                                                           \
                 : "l"(a), "l"(b), "r"(accumulate));                                               \
  }

TESSEL_DEFINE_WGMMA_TF32(256, 128, 128, 129, 130)
TESSEL_DEFINE_WGMMA_TF32(128, 64, 64, 65, 66)
TESSEL_DEFINE_WGMMA_TF32(64, 32, 32, 33, 34)

// The same with A in registers: for each warp's 16 rows the m16n8k8 TF32 A fragment (rows
// g, g + 8 and k t, t + 4 for lane 4g + t, in that order: a[0] (g, t), a[1] (g + 8, t),
// a[2] (g, t + 4), a[3] (g + 8, t + 4)); B K-major in shared memory.
#define TESSEL_DEFINE_WGMMA_TF32_RS(N, R, A0, A1, A2, A3, B, ACC)                                  \
  __device__ __forceinline__ void tessel_wgmma_tf32_rs(float(&d)[R], const unsigned(&a)[4],        \
                                                       unsigned long long b, int accumulate) {     \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #ACC                                         \
                 ", 0;\n"                                                                          \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k8.f32.tf32.tf32 {" TESSEL_WGMMA_REGS_##R \
                 "}, {%" #A0 ", %" #A1 ", %" #A2 ", %" #A3 "}, %" #B ", p, 1, 1;\n}\n"             \
                 : TESSEL_WGMMA_OUTS_##R                                                           \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));           \
  }

TESSEL_DEFINE_WGMMA_TF32_RS(128, 64, 64, 65, 66, 67, 68, 69)
TESSEL_DEFINE_WGMMA_TF32_RS(64, 32, 32, 33, 34, 35, 36, 37)

// D (f32, m64 x N, R = N/2 registers per thread) += A x B with A in registers (for each warp's
// 16 rows the m16n8k16 A fragment: 4 registers of two 16-bit values) and B in shared memory;
// TRANS_B 1: B is MN-major. Operand numbers after the accumulators: A's four, B, ACC, TB.
#define TESSEL_WGMMA_RS_ASM(N, TYPE, R, A0, A1, A2, A3, B, ACC, TB)                                \
  asm volatile(                                                                                    \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %" #ACC                                                    \
      ", 0;\n"                                                                                     \
      "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." #TYPE "." #TYPE " {" TESSEL_WGMMA_REGS_##R \
      "}, {%" #A0 ", %" #A1 ", %" #A2 ", %" #A3 "}, %" #B ", p, 1, 1, %" #TB ";\n}\n"              \
      : TESSEL_WGMMA_OUTS_##R                                                                      \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate), "n"(TRANS_B))

#define TESSEL_DEFINE_WGMMA_RS(N, R, A0, A1, A2, A3, B, ACC, TB)                          \
  template <bool F16, int TRANS_B>                                                        \
  __device__ __forceinline__ void tessel_wgmma_rs(float(&d)[R], const unsigned(&a)[4],    \
                                                  unsigned long long b, int accumulate) { \
    if constexpr (F16) {                                                                  \
      TESSEL_WGMMA_RS_ASM(N, f16, R, A0, A1, A2, A3, B, ACC, TB);                         \
    } else {                                                                              \
      TESSEL_WGMMA_RS_ASM(N, bf16, R, A0, A1, A2, A3, B, ACC, TB);                        \
    }                                                                                     \
  }

TESSEL_DEFINE_WGMMA_RS(256, 128, 128, 129, 130, 131, 132, 133, 134)
TESSEL_DEFINE_WGMMA_RS(128, 64, 64, 65, 66, 67, 68, 69, 70)
TESSEL_DEFINE_WGMMA_RS(64, 32, 32, 33, 34, 35, 36, 37, 38)

// Keeps the compiler from moving reads or writes of `r` across this point: an asynchronous
// wgmma owns its registers from issue until the wait that retires it.
template <int N>
__device__ __forceinline__ void tessel_fence_registers(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void tessel_fence_registers(unsigned (&r)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) asm volatile("" : "+r"(r[i][j])::"memory");
  }
}
