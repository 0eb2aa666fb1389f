// tessel device library: the split of attention over the keys, handed to NVRTC as the named
// header "tessel/attention_split.cuh" (included by tessel/attention_sm90.cuh).
#pragma once
#include "tessel/attention_sm80.cuh"

// A split over the keys (C::SPLITS > 1, where the query tiles alone leave most SMs idle):
// each work tile of a query tile visits its share of the key tiles and leaves, for each of
// its rows, the unnormalized output, the running max and the sum in the workspace `ws`:
// o [BATCH][SPLITS][SQ][D] floats, then (m, l) [BATCH][SPLITS][SQ][2].
// tessel_attention_combine merges the shares in split order, the same on every run.
template <class C>
__device__ __forceinline__ long long tessel_attention_partial_row(int batch, int split, int row) {
  return ((long long)batch * C::SPLITS + split) * C::SQ + row;
}

template <class C>
__device__ __forceinline__ void tessel_attention_store_partial(float* ws,
                                                               const float (&o)[C::D / 8][4],
                                                               const float (&m)[2],
                                                               const float (&l)[2], int batch,
                                                               int split, int row0) {
  const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
  float* ml = ws + (long long)C::BATCH * C::SPLITS * C::SQ * C::D;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const float sum = tessel_quad_sum(l[h]);
    const int row = row0 + g + 8 * h;
    if (row >= C::SQ) continue;
    const long long r = tessel_attention_partial_row<C>(batch, split, row);
#pragma unroll
    for (int j = 0; j < C::D / 8; ++j) {
      *(float2*)(ws + r * C::D + 8 * j + 2 * t) = make_float2(o[j][2 * h], o[j][2 * h + 1]);
    }
    if (t == 0) *(float2*)(ml + 2 * r) = make_float2(m[h], sum);
  }
}

// The shares of 64 rows of a batch entry a block of 4 warps (blockIdx.x: entry, then tile),
// in the fragment layout of tessel_attention_sm80, through `epilogue(batch, o, row0)`.
template <class C, class Epilogue>
__device__ __forceinline__ void tessel_attention_combine(const float* ws, Epilogue epilogue) {
  constexpr int kTiles = (C::SQ + 63) / 64;
  constexpr float kLog2e = 1.4426950408889634f;
  const int batch = blockIdx.x / kTiles,
            row0 = (blockIdx.x % kTiles) * 64 + 16 * (threadIdx.x / 32);
  const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
  const float* ml = ws + (long long)C::BATCH * C::SPLITS * C::SQ * C::D;
  float o[C::D / 8][4] = {};
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = min(row0 + g + 8 * h, C::SQ - 1);  // rows past SQ: any row; not stored
    float top = TESSEL_NEG_INF, sum = 0.0f;
    for (int s = 0; s < C::SPLITS; ++s) {
      top = fmaxf(top, ml[2 * tessel_attention_partial_row<C>(batch, s, row)]);
    }
    for (int s = 0; s < C::SPLITS; ++s) {
      const long long r = tessel_attention_partial_row<C>(batch, s, row);
      const float m = ml[2 * r];
      const float w = m == TESSEL_NEG_INF ? 0.0f : exp2f((m - top) * kLog2e);
      sum += w * ml[2 * r + 1];
#pragma unroll
      for (int j = 0; j < C::D / 8; ++j) {
        const float2 v = *(const float2*)(ws + r * C::D + 8 * j + 2 * t);
        o[j][2 * h] += w * v.x, o[j][2 * h + 1] += w * v.y;
      }
    }
    const float inv = 1.0f / sum;  // 0 for rows of -inf only: NaN, as softmax gives
#pragma unroll
    for (int j = 0; j < C::D / 8; ++j) o[j][2 * h] *= inv, o[j][2 * h + 1] *= inv;
  }
  epilogue(batch, o, row0);
}
