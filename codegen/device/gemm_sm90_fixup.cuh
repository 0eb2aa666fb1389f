// tessel device library: the Hopper GEMM's K slices (K_SLICES > 1: gemm_sm90_producer.cuh's
// walk cuts its last tiles' K steps into slices that different blocks multiply), handed to NVRTC
// as "tessel/gemm_sm90_fixup.cuh". Each block leaves its slice's sums (its consumers'
// accumulators, a "piece") in the workspace; the last block to finish a slice of a tile adds
// the tile's pieces in slice order and runs its epilogue. No block waits for another, so the
// blocks need not be resident at once, and the sums do not depend on which block was last.
#pragma once
#include "tessel/gemm_sm90_producer.cuh"

// The workspace from the generator's offset: a counter per cut tile and consumer (its pieces
// arrived), then each cut tile's pieces per consumer, C::MAX_PIECES in all (the walk takes no
// more slices than fit). A piece holds a consumer's accumulators (then a
// DUAL GEMM's second product's) as float4s, float4 q of thread t at q * 128 + t, so that a
// warp's stores and loads are contiguous.
template <class C>
struct tessel_gemm_sm90_fixup_layout {
  using L = tessel_gemm_sm90_layout<C>;
  static constexpr int kQuads = (C::DUAL ? 2 : 1) * L::kAccs / 4;  // float4s of a thread
  static constexpr long long kPieceBytes = kQuads * 128 * 16;
  static constexpr long long kCounterBytes =
      ((long long)C::MAX_PIECES * L::kConsumers * 8 + 255) / 256 * 256;
  static constexpr long long kBytes =
      kCounterBytes + (long long)C::MAX_PIECES * L::kConsumers * kPieceBytes;
  static_assert(C::K_SLICES == 1 || C::FIXUP_BYTES >= kBytes,
                "the host reserves too little workspace");
};

// Consumer c's piece of segment s (acc; rest too with DUAL) to the workspace `ws`; returns
// whether this block was the last of the tile's slices to arrive, acc (and rest) then holding
// the tile's sums. `verdict`: a shared word of the consumer's. A counter holds the pieces
// arrived over this launch's tag (tessel_tagged_count, which the last sets back to 0).
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
    const long long at = ((long long)s.cut * s.slices + slice) * L::kConsumers + c;
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
    unsigned long long* counter = (unsigned long long*)ws + s.cut * L::kConsumers + c;
    const bool last = tessel_tagged_count(counter, s.slices) + 1 == s.slices;
    if (last) __threadfence();  // the count, before the pieces are read
    *verdict = last;
  }
  tessel_named_barrier(1 + c, 128);
  if (!*verdict) return false;
  // One product at a time, from its first piece (what x held is in it), so that the other's
  // sums take no registers meanwhile.
  auto sum = [&](float(&x)[L::kAccs], int first) {
    const float4* p = piece(0) + first * 128;
#pragma unroll
    for (int q = 0; q < kOwn; ++q) {
      const float4 v = __ldcg(p + q * 128);
      x[4 * q] = v.x, x[4 * q + 1] = v.y, x[4 * q + 2] = v.z, x[4 * q + 3] = v.w;
    }
    for (int slice = 1; slice < s.slices; ++slice) {
      p = piece(slice) + first * 128;
#pragma unroll
      for (int q = 0; q < kOwn; ++q) {
        const float4 v = __ldcg(p + q * 128);
        x[4 * q] += v.x, x[4 * q + 1] += v.y, x[4 * q + 2] += v.z, x[4 * q + 3] += v.w;
      }
    }
  };
  sum(acc, 0);
  if constexpr (C::DUAL) sum(rest, kOwn);
  return true;
}
