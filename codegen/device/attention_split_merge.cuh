// tessel device library: the merge of a split's shares in the attention kernel, by the last
// share of a consumer's rows to arrive (C::MERGE_LAST), handed to NVRTC as the named header
// "tessel/attention_split_merge.cuh" (included by tessel/attention_sm90.cuh). The second
// launch it saves (tessel_attention_combine) cost the decode of one sequence, 1 x 32 heads
// (8 K/V) x 16384 keys split 16 ways, 4% (H200, bench/RESULTS.md, forty-sixth session). But a
// thread merges a row's float4 over the shares, 16 shares a round trip, one float4 after
// another: where rows x D > 1024 or shares > 16 (one head split 128 ways: 35% slower; 32
// rows of multi-query split 32 ways: 42%) the combine launch's 16 warps a row block, and the
// schedule picks it there.
#pragma once
#include "tessel/attention_split.cuh"

template <class C>
struct tessel_attention_merge_layout {
  // The merged rows pass through consumer c's part of Q's tile (8 KB of each 128-byte column
  // chunk), 16 rows at a time, kRowsAChunk in each chunk's part.
  static constexpr int kRowsAChunk = 16 / (C::D / 64);
  static constexpr int kStride = C::D + 8;  // fragment reads (float2) free of bank conflicts
  static_assert(kRowsAChunk * kStride * 4 <= 64 * 128, "a pass's rows fit the consumer's Q rows");
  static constexpr int kLoads = 16;  // shares whose loads go at once
};

// Row r (0 .. 15) of a merge pass of consumer c's rows, in its part of Q's tile: dead after
// its last Q K^T, and no Q loads there before the consumer's Q empty, which a split signals
// after the merge.
template <class C>
__device__ __forceinline__ float* tessel_attention_merged_row(unsigned char* sq, int c, int r) {
  using M = tessel_attention_merge_layout<C>;
  return (float*)(sq + r / M::kRowsAChunk * C::BQ * 128 + c * 64 * 128) +
         r % M::kRowsAChunk * M::kStride;
}

// Columns 4 q .. 4 q + 3 of row `row` of `batch`, merged over the shares in split order and
// normalized: each share weighed by exp(m - the largest m so far), kLoads shares' loads at
// once (one L2 round trip for up to 16 shares). A row of -inf only gives NaN, as softmax does.
template <class C>
__device__ __forceinline__ float4 tessel_attention_merge_quad(const float* ws, int batch, int row,
                                                              int q) {
  using M = tessel_attention_merge_layout<C>;
  const float* ml = ws + tessel_attention_split_layout<C>::kRows * C::D;
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float sum = 0.0f, top = TESSEL_NEG_INF;
#pragma unroll 1
  for (int first = 0; first < C::SPLITS; first += M::kLoads) {
    float2 share_ml[M::kLoads];
    float4 share_o[M::kLoads];
#pragma unroll
    for (int i = 0; i < M::kLoads; ++i) {
      const bool in = first + i < C::SPLITS;
      const long long r = tessel_attention_partial_row<C>(batch, first + i, row);
      share_ml[i] = in ? __ldcg((const float2*)(ml + 2 * r)) : make_float2(TESSEL_NEG_INF, 0.0f);
      share_o[i] = in ? __ldcg((const float4*)(ws + r * C::D) + q) : make_float4(0, 0, 0, 0);
    }
    float next = top;
#pragma unroll
    for (int i = 0; i < M::kLoads; ++i) next = fmaxf(next, share_ml[i].x);
    // Every share so far of -inf only: nothing to rescale, weights of 0 (not skipped: a NaN
    // share's NaN stays).
    const float scale = next == TESSEL_NEG_INF ? 1.0f : tessel_attention_share_weight(top, next);
    acc.x *= scale, acc.y *= scale, acc.z *= scale, acc.w *= scale, sum *= scale;
#pragma unroll
    for (int i = 0; i < M::kLoads; ++i) {
      const float w = tessel_attention_share_weight(share_ml[i].x, next);
      sum += w * share_ml[i].y;
      acc.x += w * share_o[i].x, acc.y += w * share_o[i].y;
      acc.z += w * share_o[i].z, acc.w += w * share_o[i].w;
    }
    top = next;
  }
  const float inv = 1.0f / sum;
  return make_float4(acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv);
}

// The 16 rows from row0 of consumer c's, merged by its 128 threads into its part of Q's tile,
// lanes along the row (a float4 a thread at a time, so that its loads of every share go at
// once). Rows past S_Q are zeros: the epilogue stores nothing for them but reads defined values.
template <class C>
__device__ __forceinline__ void tessel_attention_merge_pass(const float* ws, unsigned char* sq,
                                                            int c, int batch, int row0) {
  constexpr int kQuads = C::D / 4;
  const int here = min(16, C::SQ - row0);
#pragma unroll 1
  for (int i = threadIdx.x % 128; i < 16 * kQuads; i += 128) {
    const int r = i / kQuads, q = i % kQuads;
    *((float4*)tessel_attention_merged_row<C>(sq, c, r) + q) =
        r < here ? tessel_attention_merge_quad<C>(ws, batch, row0 + r, q)
                 : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
}

// The counter of the shares of `batch`'s rows from row_first (a consumer's 64).
template <class C>
__device__ __forceinline__ unsigned long long* tessel_attention_split_counter(float* ws, int batch,
                                                                              int row_first) {
  using S = tessel_attention_split_layout<C>;
  return (unsigned long long*)(ws + S::kRows * (C::D + 2)) + batch * S::kGroups + row_first / 64;
}

// After consumer c left its share of its rows (from row_first, those below S_Q) in `ws`: the
// last share of them to arrive (a counter over the launch's tag, tessel_tagged_count, which
// the last sets back to 0) merges them 16 at a time and passes each 16 in the fragment layout
// (tessel_attention_sm80's) to `epilogue(batch, o, row0)` from the warp whose rows they are.
// No block waits for another. The count is one thread's acquire-release atomic after a
// barrier, not every thread's fences (0.25 us less in a decode of 23 us, H200), from `seen`,
// the counter as that thread read it before the last products: where an earlier share put
// the tag there, one round trip. `verdict`: a shared word of the consumer's; named barrier
// `bar` over its 128 threads.
template <class C, class Epilogue>
__device__ __forceinline__ void tessel_attention_finish_split(float* ws, unsigned char* sq, int c,
                                                              int batch, int row_first,
                                                              unsigned long long seen,
                                                              volatile unsigned* verdict, int bar,
                                                              Epilogue& epilogue) {
  if (row_first >= C::SQ) return;  // no rows of the consumer's in this query tile
  tessel_named_barrier(bar, 128);  // every thread's share stored
  if (threadIdx.x % 128 == 0) {
    unsigned long long* counter = tessel_attention_split_counter<C>(ws, batch, row_first);
    *verdict = tessel_tagged_count<true>(counter, C::SPLITS, seen) + 1 == C::SPLITS;
  }
  tessel_named_barrier(bar, 128);
  if (!*verdict) return;
  const int warp = threadIdx.x / 32 % 4, g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
  const int passes = min(4, (C::SQ - row_first + 15) / 16);
#pragma unroll 1
  for (int p = 0; p < passes; ++p) {
    if (p > 0) tessel_named_barrier(bar, 128);  // the last pass's rows read
    tessel_attention_merge_pass<C>(ws, sq, c, batch, row_first + 16 * p);
    tessel_named_barrier(bar, 128);
    if (warp != p) continue;
    float o[C::D / 8][4];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float* row = tessel_attention_merged_row<C>(sq, c, g + 8 * h);
#pragma unroll
      for (int j = 0; j < C::D / 8; ++j) {
        const float2 v = *(const float2*)(row + 8 * j + 2 * t);
        o[j][2 * h] = v.x, o[j][2 * h + 1] = v.y;
      }
    }
    epilogue(batch, o, row_first + 16 * p);
  }
  tessel_fence_proxy_async();      // these writes to Q's tile, before TMA writes the next Q there
  tessel_named_barrier(bar, 128);  // every warp's rows read before Q empty
}
