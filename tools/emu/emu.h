// CPU emulation of the CUDA vocabulary and the few PTX primitives attention_sm80.cuh uses.
// One block at a time: 128 std::threads; warp collectives exchange through per-warp slots and
// a 32-thread std::barrier (two alternating slot sets, so one barrier per collective).
#pragma once
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <thread>
#include <unistd.h>
#include <vector>
#include <algorithm>

// CUDA's integer min and max.
using std::max;
using std::min;

#define __device__
#define __host__
#define __forceinline__ inline
#define __global__
#define __align__(n) alignas(n)
#define __launch_bounds__(n)
// __restrict__ is already a g++ keyword.

struct emu_uint3 { unsigned x = 0, y = 0, z = 0; };
inline thread_local emu_uint3 threadIdx, blockIdx;
inline emu_uint3 gridDim, blockDim;

[[noreturn]] inline void emu_fail(const char* what) {
  std::fprintf(stderr, "EMU FAILURE: %s (block %u,%u thread %u)\n", what, blockIdx.x, blockIdx.y,
               threadIdx.x);
  std::fflush(stderr);
  std::_Exit(2);
}

inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }

// ---- 16-bit formats -----------------------------------------------------------------------
typedef unsigned short bf16_t;
typedef unsigned short f16_t;
inline float tessel_bf16_to_float(bf16_t v) { return __uint_as_float(((unsigned)v) << 16); }
inline bf16_t tessel_float_to_bf16(float f) {  // the prelude's non-sm80 path: RNE, NaN quiet
  unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (bf16_t)((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (bf16_t)(u >> 16);
}
inline float tessel_f16_to_float(f16_t v) { _Float16 h; std::memcpy(&h, &v, 2); return (float)h; }
inline f16_t tessel_float_to_f16(float f) { _Float16 h = (_Float16)f; f16_t v; std::memcpy(&v, &h, 2); return v; }
inline unsigned tessel_pack_bf16(float lo, float hi) {
  return (unsigned)tessel_float_to_bf16(lo) | ((unsigned)tessel_float_to_bf16(hi) << 16);
}
inline float tessel_exp2_ftz(float x) {  // MUFU.EX2 with .ftz: results below 2^-126 are 0
  const float r = std::exp2(x);
  return std::fpclassify(r) == FP_SUBNORMAL ? 0.0f : r;
}
inline unsigned tessel_pack_f16(float lo, float hi) {
  return (unsigned)tessel_float_to_f16(lo) | ((unsigned)tessel_float_to_f16(hi) << 16);
}

// ---- the block being run ------------------------------------------------------------------
enum EmuOp { OP_LDM = 1, OP_LDM_T, OP_MMA_BF16, OP_MMA_F16, OP_SHFL };
struct EmuSlot {
  int op;
  const unsigned char* addr;
  unsigned a[4], b[2];
  uint64_t val;
  int arg;
  unsigned mask;
};
struct EmuWarp {
  std::barrier<> bar{32};
  EmuSlot slots[2][32];
};
struct EmuBlock {
  unsigned char* smem = nullptr;
  size_t smem_bytes = 0;
  std::barrier<> bar{128};
  EmuWarp warps[4];
};
inline thread_local EmuBlock* emu_block = nullptr;
inline thread_local int emu_phase = 0;
inline thread_local uint64_t emu_collectives = 0;
inline bool emu_deferred_cp_async = false;  // perform cp.async copies at wait_group (else at issue)

inline unsigned char* emu_shared_base() { return emu_block->smem; }
inline void emu_check_smem(const void* p, size_t bytes, size_t align, const char* who) {
  const unsigned char* c = (const unsigned char*)p;
  if (c < emu_block->smem || c + bytes > emu_block->smem + emu_block->smem_bytes) {
    char msg[200];
    std::snprintf(msg, sizeof msg, "%s: shared address out of range (offset %lld of %zu)", who,
                  (long long)(c - emu_block->smem), emu_block->smem_bytes);
    emu_fail(msg);
  }
  if ((uintptr_t)c % align) emu_fail("misaligned shared address");
}
inline unsigned tessel_smem(const void* p) {
  emu_check_smem(p, 1, 1, "tessel_smem");
  return (unsigned)((const unsigned char*)p - emu_block->smem);
}

inline void __syncthreads() { emu_block->bar.arrive_and_wait(); }

// Writes this lane's slot, waits for the warp, checks all 32 lanes joined the same collective;
// returns the warp's slots (valid until this lane's next-but-one collective).
template <class Fill>
inline const EmuSlot* emu_collective(int op, Fill fill) {
  EmuWarp& w = emu_block->warps[threadIdx.x / 32];
  const int lane = threadIdx.x % 32;
  EmuSlot* s = w.slots[emu_phase];
  s[lane] = EmuSlot{};
  s[lane].op = op;
  fill(s[lane]);
  w.bar.arrive_and_wait();
  for (int i = 0; i < 32; ++i)
    if (s[i].op != op || s[i].arg != s[lane].arg || s[i].mask != s[lane].mask)
      emu_fail("lanes of a warp disagree on a collective (divergence or mismatched operands)");
  emu_phase ^= 1;
  ++emu_collectives;
  return s;
}

template <class V>
inline V __shfl_xor_sync(unsigned mask, V v, int lane_mask) {
  static_assert(sizeof(V) <= 8, "");
  if (mask != 0xffffffffu) emu_fail("shfl with partial mask not emulated");
  const EmuSlot* s = emu_collective(OP_SHFL, [&](EmuSlot& x) {
    std::memcpy(&x.val, &v, sizeof(V));
    x.arg = lane_mask;
    x.mask = mask;
  });
  const int src = (threadIdx.x % 32) ^ lane_mask;
  V r;
  std::memcpy(&r, &s[src & 31].val, sizeof(V));
  return r;
}

// ldmatrix.sync.aligned.m8n8.x4{.trans}.shared.b16
inline void emu_ldmatrix_x4(unsigned (&r)[4], const void* p, bool trans) {
  emu_check_smem(p, 16, 16, "ldmatrix");
  const EmuSlot* s = emu_collective(trans ? OP_LDM_T : OP_LDM,
                                    [&](EmuSlot& x) { x.addr = (const unsigned char*)p; });
  const int i = threadIdx.x % 32, g = i / 4, t = i % 4;
  for (int m = 0; m < 4; ++m) {
    unsigned short lo, hi;
    if (!trans) {  // row g, columns 2t, 2t + 1
      std::memcpy(&lo, s[8 * m + g].addr + 2 * (2 * t), 2);
      std::memcpy(&hi, s[8 * m + g].addr + 2 * (2 * t + 1), 2);
    } else {  // rows 2t, 2t + 1, column g
      std::memcpy(&lo, s[8 * m + 2 * t].addr + 2 * g, 2);
      std::memcpy(&hi, s[8 * m + 2 * t + 1].addr + 2 * g, 2);
    }
    r[m] = (unsigned)lo | ((unsigned)hi << 16);
  }
}
inline void tessel_ldmatrix_x4(unsigned (&r)[4], const void* p) { emu_ldmatrix_x4(r, p, false); }
inline void tessel_ldmatrix_x4_trans(unsigned (&r)[4], const void* p) { emu_ldmatrix_x4(r, p, true); }

// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32, exact products summed in
// double, rounded once to f32 with the accumulator.
template <bool F16>
inline void tessel_mma_16816(float* d, const unsigned (&a)[4], const unsigned (&b)[2]) {
  const EmuSlot* s = emu_collective(F16 ? OP_MMA_F16 : OP_MMA_BF16, [&](EmuSlot& x) {
    for (int i = 0; i < 4; ++i) x.a[i] = a[i];
    x.b[0] = b[0], x.b[1] = b[1];
  });
  auto cvt = [](unsigned w, int half) {
    const unsigned short h = (unsigned short)(half ? w >> 16 : w & 0xffffu);
    return F16 ? (double)tessel_f16_to_float(h) : (double)tessel_bf16_to_float(h);
  };
  auto A = [&](int row, int k) {  // a0 (g, 2t..), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..)
    const int lane = 4 * (row % 8) + (k % 8) / 2, reg = (row >= 8) + 2 * (k >= 8);
    return cvt(s[lane].a[reg], k % 2);
  };
  auto B = [&](int k, int n) {  // b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g)
    const int lane = 4 * n + (k % 8) / 2, reg = k >= 8;
    return cvt(s[lane].b[reg], k % 2);
  };
  const int i = threadIdx.x % 32, g = i / 4, t = i % 4;
  for (int e = 0; e < 4; ++e) {  // c0,c1 (g, 2t..2t+1), c2,c3 (g+8, 2t..)
    const int row = g + 8 * (e / 2), col = 2 * t + e % 2;
    double acc = d[e];
    for (int k = 0; k < 16; ++k) acc += A(row, k) * B(k, col);
    d[e] = (float)acc;
  }
}

// cp.async: immediate copy, or (deferred mode) held per thread until its wait_group.
struct EmuCopy { void* dst; const void* src; bool inside; };
inline thread_local std::vector<EmuCopy> emu_open_group;
inline thread_local std::vector<std::vector<EmuCopy>> emu_groups;
inline void emu_do_copy(const EmuCopy& c) {
  if (c.inside) std::memcpy(c.dst, c.src, 16);
  else std::memset(c.dst, 0, 16);
}
inline void tessel_copy_16_async(void* dst, const void* src, bool inside) {
  emu_check_smem(dst, 16, 16, "cp.async dst");
  if ((uintptr_t)src % 16) emu_fail("cp.async: misaligned global source");
  if (emu_deferred_cp_async) emu_open_group.push_back({dst, src, inside});
  else emu_do_copy({dst, src, inside});
}
inline void tessel_cp_async_commit() {
  emu_groups.push_back(std::move(emu_open_group));
  emu_open_group.clear();
}
template <int N>
inline void tessel_cp_async_wait() {
  while ((int)emu_groups.size() > N) {
    for (auto& c : emu_groups.front()) emu_do_copy(c);
    emu_groups.erase(emu_groups.begin());
  }
}

// ---- launch: one block at a time, 128 threads, with a deadlock watchdog --------------------
template <class Kernel>
inline void emu_launch(unsigned gx, unsigned gy, size_t smem_bytes, Kernel kernel,
                       double watchdog_s = 120.0) {
  gridDim = {gx, gy, 1};
  blockDim = {128, 1, 1};
  for (unsigned by = 0; by < gy; ++by)
    for (unsigned bx = 0; bx < gx; ++bx) {
      EmuBlock* blk = new EmuBlock;
      blk->smem_bytes = smem_bytes;
      blk->smem = static_cast<unsigned char*>(::operator new(smem_bytes, std::align_val_t(128)));
      std::memset(blk->smem, 0xff, smem_bytes);  // poison: NaN in bf16 and f16
      std::mutex mu;
      std::condition_variable cv;
      int done = 0;
      std::vector<std::thread> threads;
      for (unsigned tid = 0; tid < 128; ++tid)
        threads.emplace_back([&, tid] {
          threadIdx = {tid, 0, 0};
          blockIdx = {bx, by, 0};
          emu_block = blk;
          emu_phase = 0;
          kernel();
          if (!emu_open_group.empty() || !emu_groups.empty())
            emu_fail("cp.async copies never waited for");
          std::lock_guard<std::mutex> l(mu);
          ++done;
          cv.notify_all();
        });
      {
        std::unique_lock<std::mutex> l(mu);
        if (!cv.wait_for(l, std::chrono::duration<double>(watchdog_s), [&] { return done == 128; })) {
          std::fprintf(stderr, "EMU FAILURE: DEADLOCK in block (%u,%u): %d of 128 threads done\n",
                       bx, by, done);
          std::fflush(stderr);
          std::_Exit(3);
        }
      }
      for (auto& t : threads) t.join();
      ::operator delete(blk->smem, std::align_val_t(128));
      delete blk;
    }
}
