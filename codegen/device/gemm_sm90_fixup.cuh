// tessel device library: the Hopper GEMM's K slices (K_SLICES > 1: gemm_sm90_producer.cuh's
// walk cuts every tile's K steps into slices that different blocks multiply), handed to NVRTC
// as "tessel/gemm_sm90_fixup.cuh". Each block leaves its slice's sums (its consumers'
// accumulators, a "piece") in the workspace; the last block to finish a slice of a tile adds
// the tile's pieces in slice order and runs its epilogue. No block waits for another, so the
// blocks need not be resident at once, and the sums do not depend on which block was last.
#pragma once
#include "tessel/gemm_sm90_producer.cuh"

// The workspace from the generator's offset: a counter per tile and consumer (its pieces
// arrived), then each tile's K_SLICES pieces per consumer, for C::MAX_TILES tiles (the walk's
// most: the rows argument's largest value). A piece holds a consumer's accumulators (then a
// DUAL GEMM's second product's) as float4s, float4 q of thread t at q * 128 + t, so that a
// warp's stores and loads are contiguous.
template <class C>
struct tessel_gemm_sm90_fixup_layout {
  using L = tessel_gemm_sm90_layout<C>;
  static constexpr int kQuads = (C::DUAL ? 2 : 1) * L::kAccs / 4;  // float4s of a thread
  static constexpr long long kPieceBytes = kQuads * 128 * 16;
  static constexpr long long kCounterBytes =
      ((long long)C::MAX_TILES * L::kConsumers * 8 + 255) / 256 * 256;
  static constexpr long long kBytes =
      kCounterBytes + (long long)C::MAX_TILES * C::K_SLICES * L::kConsumers * kPieceBytes;
  static_assert(C::K_SLICES == 1 || C::FIXUP_BYTES >= kBytes,
                "the host reserves too little workspace");
};

// Consumer c's piece of segment s (acc; rest too with DUAL) to the workspace `ws`; returns
// whether this block was the last of the tile's slices to arrive, acc (and rest) then holding
// the tile's sums. `verdict`: a shared word of the consumer's. A counter holds this launch's
// tag (tessel_launch_tag) over the pieces arrived, so that whatever an earlier launch or
// another kernel left in the workspace counts as none; the last block sets it back to 0.
template <class C>
__device__ __forceinline__ bool tessel_gemm_sm90_fix_up(
    float (&acc)[tessel_gemm_sm90_layout<C>::kAccs],
    float (&rest)[tessel_gemm_sm90_layout<C>::kAccs], unsigned char* ws,
    const tessel_gemm_sm90_segment& s, int c, volatile unsigned* verdict) {
  using L = tessel_gemm_sm90_layout<C>;
  using F = tessel_gemm_sm90_fixup_layout<C>;
  constexpr int kOwn = L::kAccs / 4;
  const int t = threadIdx.x % 128;
  auto piece = [&](int slice) {
    const long long at = ((long long)s.t * C::K_SLICES + slice) * L::kConsumers + c;
    return (float4*)(ws + F::kCounterBytes + at * F::kPieceBytes) + t;
  };
  float4* mine = piece(s.slice);
#pragma unroll
  for (int q = 0; q < kOwn; ++q) {
    __stcg(mine + q * 128, make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
    if constexpr (C::DUAL) {
      __stcg(mine + (kOwn + q) * 128,
             make_float4(rest[4 * q], rest[4 * q + 1], rest[4 * q + 2], rest[4 * q + 3]));
    }
  }
  __threadfence();  // the piece, before the count that says it is there
  tessel_named_barrier(1 + c, 128);
  if (t == 0) {
    unsigned long long* counter = (unsigned long long*)ws + s.t * L::kConsumers + c;
    const unsigned long long tag = (unsigned long long)tessel_launch_tag() << 32;
    unsigned long long seen = *(volatile unsigned long long*)counter, was;
    unsigned arrived;
    do {
      was = seen;
      arrived = (was & 0xffffffff00000000ull) == tag ? (unsigned)was : 0u;
      seen = atomicCAS(counter, was, tag | (arrived + 1));
    } while (seen != was);
    const bool last = arrived + 1 == C::K_SLICES;
    if (last) {
      *(volatile unsigned long long*)counter = 0;
      __threadfence();  // the count, before the pieces are read
    }
    *verdict = last;
  }
  tessel_named_barrier(1 + c, 128);
  if (!*verdict) return false;
  for (int slice = 0; slice < C::K_SLICES; ++slice) {
    const float4* p = piece(slice);
    auto add = [&](float(&x)[L::kAccs], int q, const float4& v) {
      x[4 * q] = slice == 0 ? v.x : x[4 * q] + v.x;
      x[4 * q + 1] = slice == 0 ? v.y : x[4 * q + 1] + v.y;
      x[4 * q + 2] = slice == 0 ? v.z : x[4 * q + 2] + v.z;
      x[4 * q + 3] = slice == 0 ? v.w : x[4 * q + 3] + v.w;
    };
#pragma unroll
    for (int q = 0; q < kOwn; ++q) {
      add(acc, q, __ldcg(p + q * 128));
      if constexpr (C::DUAL) add(rest, q, __ldcg(p + (kOwn + q) * 128));
    }
  }
  return true;
}
