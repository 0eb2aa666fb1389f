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

// The shares sit in L2 and a row's merge is a few loads of them: latency, not bandwidth, is its
// cost, so that a row's shares are loaded at once and the rows spread over many blocks. A block
// of 16 warps takes C::COMBINE_ROWS rows (1 to 64) of a batch entry (blockIdx.x: entry, then
// rows). First the warps merge the rows, their lanes along the row, into shared memory: a row a
// warp where there are as many rows as warps, else each row's shares in parts (runs of at
// least 8), a warp a part, the parts then added in order (tessel_attention_merge_rows). Then a
// warp for each 16 rows reads them back in the fragment layout of tessel_attention_sm80 and
// passes them to `epilogue(batch, o, row0, rows)`, which stores rows row0 .. row0 + rows - 1
// of the fragment's 16. Rows go through shared memory in passes of at most 32 KB. (One block
// for 32 rows of 132 shares took 28-34 us, each warp 2 rows of 25 round trips in a row; one
// warp for 16 rows, each share after the last, 30 us for 16 shares of 4 rows.)
constexpr int kTesselCombineWarps = 16;

template <class C>
struct tessel_attention_combine_layout {
  static constexpr int kLane = C::D / 32;  // floats of a row a lane merges
  static constexpr int kRows = 8192 / C::D < 64 ? 8192 / C::D : 64;  // rows a pass
  static constexpr int kStride = C::D + 8;  // fragment reads (float2) free of bank conflicts
};

// Column of a row's k-th float in lane `lane`: 4 floats a lane side by side, 128 a round (2
// where D = 64).
template <class C>
__device__ __forceinline__ int tessel_attention_combine_column(int lane, int k) {
  constexpr int V = C::D == 64 ? 2 : 4;
  return k / V * (32 * V) + lane * V + k % V;
}

// The largest running max of row `row`'s shares, in every lane.
template <class C>
__device__ __forceinline__ float tessel_attention_share_top(const float* ws, int batch, int row) {
  const int lane = threadIdx.x % 32;
  const float* ml = ws + tessel_attention_split_layout<C>::kRows * C::D;
  float top = TESSEL_NEG_INF;
  for (int s = lane; s < C::SPLITS; s += 32) {
    top = fmaxf(top, ml[2 * tessel_attention_partial_row<C>(batch, s, row)]);
  }
#pragma unroll
  for (int step = 16; step > 0; step /= 2) top = fmaxf(top, __shfl_xor_sync(~0u, top, step));
  return top;
}

// Row `row`'s shares [begin, end) weighed by exp(m - top), in split order: their outputs into
// `acc` (the lane's columns, tessel_attention_combine_column) and their sums into `sum` (every
// lane's). Weights of shares of -inf only are 0.
template <class C>
__device__ __forceinline__ void tessel_attention_merge_shares(
    const float* ws, int batch, int row, int begin, int end, float top,
    float (&acc)[tessel_attention_combine_layout<C>::kLane], float& sum) {
  using L = tessel_attention_combine_layout<C>;
  constexpr float kLog2e = 1.4426950408889634f;
  const int lane = threadIdx.x % 32;
  const float* ml = ws + tessel_attention_split_layout<C>::kRows * C::D;
#pragma unroll
  for (int k = 0; k < L::kLane; ++k) acc[k] = 0.0f;
  sum = 0.0f;
  for (int first = begin; first < end; first += 32) {
    float weight = 0.0f;  // of share first + lane
    if (first + lane < end) {
      const float2 v =
          *(const float2*)(ml + 2 * tessel_attention_partial_row<C>(batch, first + lane, row));
      weight = v.x == TESSEL_NEG_INF ? 0.0f : exp2f((v.x - top) * kLog2e);
      sum += weight * v.y;
    }
    // Eight shares' loads at once, then their sums in split order.
    for (int base = first; base < first + 32 && base < end; base += 8) {
      float v[8][L::kLane];
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const float* share = ws + tessel_attention_partial_row<C>(batch, base + i, row) * C::D;
        const bool in = base + i < end;
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
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const float w = __shfl_sync(~0u, weight, base - first + i);
#pragma unroll
        for (int k = 0; k < L::kLane; ++k) acc[k] += w * v[i][k];
      }
    }
  }
#pragma unroll
  for (int step = 16; step > 0; step /= 2) sum += __shfl_xor_sync(~0u, sum, step);
}

// Rows first .. first + here - 1 of `batch` (here <= kRows), normalized, into rows[0 ..
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
  float acc[L::kLane], sum;
  // Item i: part i % parts of row i / parts; with parts, one a warp (here * parts <= 16),
  // unnormalized into rows[i], its sum after the row's D.
  for (int i = warp; i < here * parts; i += kTesselCombineWarps) {
    const int row = i / parts, begin = i % parts * per;
    tessel_attention_merge_shares<C>(ws, batch, first + row, begin, min(C::SPLITS, begin + per),
                                     tessel_attention_share_top<C>(ws, batch, first + row), acc,
                                     sum);
    const float scale = parts == 1 ? 1.0f / sum : 1.0f;
#pragma unroll
    for (int k = 0; k < L::kLane; ++k) {
      rows[i][tessel_attention_combine_column<C>(lane, k)] = acc[k] * scale;
    }
    if (parts > 1 && lane == 0) rows[i][C::D] = sum;
  }
  if (parts == 1) return;
  __syncthreads();
  if (warp < here) {
    sum = 0.0f;
#pragma unroll
    for (int k = 0; k < L::kLane; ++k) acc[k] = 0.0f;
    for (int p = 0; p < parts; ++p) {
      const float* from = rows[warp * parts + p];
      sum += from[C::D];
#pragma unroll
      for (int k = 0; k < L::kLane; ++k)
        acc[k] += from[tessel_attention_combine_column<C>(lane, k)];
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
  constexpr int kBlockRows = C::COMBINE_ROWS;
  constexpr int kBlocks = (C::SQ + kBlockRows - 1) / kBlockRows;  // an entry's
  constexpr int kPass = L::kRows < kBlockRows ? L::kRows : kBlockRows;
  static_assert(kPass % 16 == 0 || kPass == kBlockRows, "a pass holds whole fragments");
  __shared__ float rows[L::kRows][L::kStride];
  const int batch = blockIdx.x / kBlocks, rows0 = blockIdx.x % kBlocks * kBlockRows;
  const int warp = threadIdx.x / 32, g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
#pragma unroll 1
  for (int first = rows0; first < rows0 + kBlockRows && first < C::SQ; first += kPass) {
    const int here = min(kPass, C::SQ - first);
    tessel_attention_merge_rows<C>(ws, batch, first, here, rows);
    // The fragment's rows past `here`: the epilogue stores nothing, but reads defined values.
    for (int r = here + warp; r < L::kRows; r += kTesselCombineWarps) {
      for (int k = threadIdx.x % 32; k < C::D; k += 32) rows[r][k] = 0.0f;
    }
    __syncthreads();
    if (16 * warp < here) {
      float o[C::D / 8][4];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float* row = rows[16 * warp + g + 8 * h];
#pragma unroll
        for (int j = 0; j < C::D / 8; ++j) {
          const float2 v = *(const float2*)(row + 8 * j + 2 * t);
          o[j][2 * h] = v.x, o[j][2 * h + 1] = v.y;
        }
      }
      epilogue(batch, o, first + 16 * warp, min(16, here - 16 * warp));
    }
    __syncthreads();
  }
}
