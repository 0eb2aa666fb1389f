// tessel device library: the split of attention over the keys, handed to NVRTC as the named
// header "tessel/attention_split.cuh" (included by tessel/attention_sm90.cuh).
#pragma once
#include "tessel/attention_sm80.cuh"

// A split over the keys (C::SPLITS > 1, where the query tiles alone leave most SMs idle):
// each work tile of a query tile visits its share of the key tiles and leaves, for each of
// its rows, the unnormalized output, the running max and the sum in the workspace `ws`:
// o [BATCH][SPLITS][SQ][D] floats, then (m, l) [BATCH][SPLITS][SQ][2], then a counter for each
// batch entry's 64-row groups (a consumer's rows). Where C::MERGE_LAST, the last share of a
// consumer's rows to arrive merges them and runs the epilogue (attention_split_merge.cuh);
// else a second launch does, tessel_attention_combine below. Both merge in split order, the
// same on every run.
template <class C>
struct tessel_attention_split_layout {
  static constexpr long long kRows = (long long)C::BATCH * C::SPLITS * C::SQ;  // shares' rows
  static constexpr int kGroups = (C::SQ + 63) / 64;                            // counters an entry
};
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
  float* ml = ws + tessel_attention_split_layout<C>::kRows * C::D;
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

// The weight exp(m - top) of a share (or a part of a row's shares) whose running max is m, in a
// merge whose largest is top: 0 for m of -inf (no keys), so that a share whose scores were all
// NaN (m -inf, l and o NaN) keeps its NaN through 0 x NaN.
__device__ __forceinline__ float tessel_attention_share_weight(float m, float top) {
  constexpr float kLog2e = 1.4426950408889634f;
  return m == TESSEL_NEG_INF ? 0.0f : exp2f((m - top) * kLog2e);
}

// The shares sit in L2 and a row's merge is a few loads of them: latency, not bandwidth, is its
// cost, so that a row's shares are loaded at once and the rows spread over many blocks. A block of
// 16 warps takes C::COMBINE_ROWS rows (1 to 16) of a batch entry (blockIdx.x: entry, then rows).
// First the warps merge the rows, their lanes along the row, into shared memory: a row a warp where
// there are as many rows as warps, else each row's shares in parts (runs of at least 8), a warp a
// part, the parts then added in order, each weighed by its own largest maximum
// (tessel_attention_merge_rows). Then warp 0 reads them back in the fragment layout of
// tessel_attention_sm80 and passes them to `epilogue(batch, o, row0, rows)`, which stores rows row0
// .. row0 + rows - 1 of the fragment's 16. (One block for 32 rows of 132 shares took 28-34 us, each
// warp 2 rows of 25 round trips in a row; one warp for 16 rows, each share after the last, 30 us
// for 16 shares of 4 rows.)
constexpr int kTesselCombineWarps = 16;

template <class C>
struct tessel_attention_combine_layout {
  static constexpr int kLane = C::D / 32;            // floats of a row a lane merges
  static constexpr int kRows = kTesselCombineWarps;  // of shared memory: a warp's row or part
  static constexpr int kStride = C::D + 8;  // fragment reads (float2) free of bank conflicts
};

// Column of a row's k-th float in lane `lane`: 4 floats a lane side by side, 128 a round (2
// where D = 64).
template <class C>
__device__ __forceinline__ int tessel_attention_combine_column(int lane, int k) {
  constexpr int V = C::D == 64 ? 2 : 4;
  return k / V * (32 * V) + lane * V + k % V;
}

// Row `row`'s shares [begin, end) merged in split order, lanes along the row: its outputs into
// `acc` (the lane's columns, tessel_attention_combine_column), weighed by exp(m - top), their
// sums into `sum` and the largest m into `top` (every lane's). Each round loads kLoads shares'
// values, and their maxima and sums a lane a share, at once, and rescales what came before by
// the new largest m: one L2 round trip a round (the shares' maxima first, then their weights,
// then their values took three chained trips). Shares of -inf only weigh 0; a row of them
// only leaves top -inf and sum 0.
template <class C>
__device__ __forceinline__ void tessel_attention_merge_shares(
    const float* ws, int batch, int row, int begin, int end,
    float (&acc)[tessel_attention_combine_layout<C>::kLane], float& sum, float& top) {
  using L = tessel_attention_combine_layout<C>;
  constexpr int kLoads = 64 / L::kLane;  // 64 floats of values a lane a round, 32 shares at most
  static_assert(kLoads <= 32, "a lane's share's maximum and sum");
  const int lane = threadIdx.x % 32;
  const float* ml = ws + tessel_attention_split_layout<C>::kRows * C::D;
#pragma unroll
  for (int k = 0; k < L::kLane; ++k) acc[k] = 0.0f;
  float part = 0.0f;  // the lane's shares' weighed sums
  top = TESSEL_NEG_INF;
#pragma unroll 1
  for (int base = begin; base < end; base += kLoads) {
    const bool mine = lane < kLoads && base + lane < end;
    const float2 share_ml =
        mine ? *(const float2*)(ml + 2 * tessel_attention_partial_row<C>(batch, base + lane, row))
             : make_float2(TESSEL_NEG_INF, 0.0f);
    float v[kLoads][L::kLane];
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const bool in = base + i < end;
      const float* share = ws + tessel_attention_partial_row<C>(batch, base + i, row) * C::D;
      if constexpr (C::D == 64) {
        const int col = tessel_attention_combine_column<C>(lane, 0);
        *(float2*)v[i] = in ? *(const float2*)(share + col) : make_float2(0.0f, 0.0f);
      } else {
#pragma unroll
        for (int k = 0; k < L::kLane; k += 4) {
          const int col = tessel_attention_combine_column<C>(lane, k);
          *(float4*)(v[i] + k) = in ? *(const float4*)(share + col) : make_float4(0, 0, 0, 0);
        }
      }
    }
    float next = fmaxf(top, share_ml.x);
#pragma unroll
    for (int step = 16; step > 0; step /= 2) next = fmaxf(next, __shfl_xor_sync(~0u, next, step));
    // Every share so far of -inf only: nothing to rescale, weights of 0 (not skipped: a NaN
    // share's NaN stays).
    const float scale = next == TESSEL_NEG_INF ? 1.0f : tessel_attention_share_weight(top, next);
    const float weight = tessel_attention_share_weight(share_ml.x, next);
    part = part * scale + weight * share_ml.y;
#pragma unroll
    for (int k = 0; k < L::kLane; ++k) acc[k] *= scale;
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const float w = __shfl_sync(~0u, weight, i);
#pragma unroll
      for (int k = 0; k < L::kLane; ++k) acc[k] += w * v[i][k];
    }
    top = next;
  }
  sum = part;
#pragma unroll
  for (int step = 16; step > 0; step /= 2) sum += __shfl_xor_sync(~0u, sum, step);
}

// Rows first .. first + here - 1 of `batch` (here <= 16), normalized, into rows[0 ..
// here - 1] (0 for rows of -inf only: NaN, as softmax gives), merged by the block's warps. The
// parts a row's shares are merged in depend on `here` and C::SPLITS alone: the same sums on
// every run.
template <class C>
__device__ __forceinline__ void tessel_attention_merge_rows(
    const float* ws, int batch, int first, int here,
    float (*rows)[tessel_attention_combine_layout<C>::kStride]) {
  using L = tessel_attention_combine_layout<C>;
  static_assert(L::kRows >= kTesselCombineWarps, "each warp's part in rows[warp]");
  constexpr int kMostParts =
      (C::SPLITS + 7) / 8 < kTesselCombineWarps ? (C::SPLITS + 7) / 8 : kTesselCombineWarps;
  int parts = 1;
  while (2 * parts <= kMostParts && 2 * parts * here <= kTesselCombineWarps) parts *= 2;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int per = (C::SPLITS + parts - 1) / parts;
  float acc[L::kLane], sum, top;
  // Item i: part i % parts of row i / parts; with parts, one a warp (here * parts <= 16),
  // unnormalized into rows[i], its sum and largest m after the row's D.
  for (int i = warp; i < here * parts; i += kTesselCombineWarps) {
    const int row = i / parts, begin = i % parts * per;
    tessel_attention_merge_shares<C>(ws, batch, first + row, begin, min(C::SPLITS, begin + per),
                                     acc, sum, top);
    const float scale = parts == 1 ? 1.0f / sum : 1.0f;
#pragma unroll
    for (int k = 0; k < L::kLane; ++k) {
      rows[i][tessel_attention_combine_column<C>(lane, k)] = acc[k] * scale;
    }
    if (parts > 1 && lane == 0) {
      rows[i][C::D] = sum;
      rows[i][C::D + 1] = top;
    }
  }
  if (parts == 1) return;
  __syncthreads();
  if (warp < here) {
    top = TESSEL_NEG_INF;
    for (int p = 0; p < parts; ++p) top = fmaxf(top, rows[warp * parts + p][C::D + 1]);
    sum = 0.0f;
#pragma unroll
    for (int k = 0; k < L::kLane; ++k) acc[k] = 0.0f;
    for (int p = 0; p < parts; ++p) {
      const float* from = rows[warp * parts + p];
      // A part of -inf only (or a row of them) weighs 0: its sum and values are 0.
      const float w = tessel_attention_share_weight(from[C::D + 1], top);
      sum += w * from[C::D];
#pragma unroll
      for (int k = 0; k < L::kLane; ++k)
        acc[k] += w * from[tessel_attention_combine_column<C>(lane, k)];
    }
  }
  __syncthreads();
  if (warp < here) {
    const float inv = 1.0f / sum;
#pragma unroll
    for (int k = 0; k < L::kLane; ++k)
      rows[warp][tessel_attention_combine_column<C>(lane, k)] = acc[k] * inv;
  }
}

template <class C, class Epilogue>
__device__ __forceinline__ void tessel_attention_combine(const float* ws, Epilogue epilogue) {
  using L = tessel_attention_combine_layout<C>;
  static_assert(C::COMBINE_ROWS <= 16, "a block's rows in one fragment");
  constexpr int kBlocks = (C::SQ + C::COMBINE_ROWS - 1) / C::COMBINE_ROWS;  // an entry's
  __shared__ float rows[L::kRows][L::kStride];
  const int batch = blockIdx.x / kBlocks, first = blockIdx.x % kBlocks * C::COMBINE_ROWS;
  const int here = min(C::COMBINE_ROWS, C::SQ - first);
  const int warp = threadIdx.x / 32, g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
  tessel_attention_merge_rows<C>(ws, batch, first, here, rows);
  // The fragment's rows past `here`: the epilogue stores nothing, but reads defined values.
  if (warp >= here) {
    for (int k = threadIdx.x % 32; k < C::D; k += 32) rows[warp][k] = 0.0f;
  }
  __syncthreads();
  if (warp == 0) {
    float o[C::D / 8][4];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float* row = rows[g + 8 * h];
#pragma unroll
      for (int j = 0; j < C::D / 8; ++j) {
        const float2 v = *(const float2*)(row + 8 * j + 2 * t);
        o[j][2 * h] = v.x, o[j][2 * h + 1] = v.y;
      }
    }
    epilogue(batch, o, first, here);
  }
}
