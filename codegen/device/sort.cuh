// tessel/sort.cuh: sorting lines along an axis (codegen/sort_codegen.cc writes the entry
// points). A line's elements become items (key, position): the key is an unsigned integer
// that orders as the values do (NaN the largest, -0 equal to 0, descending sorts flipped),
// and the position breaks ties, so items are distinct and any correct sort is stable.
//
// A block holds one part of a line (up to P items) in shared memory. It keeps the k smallest
// items, found by a radix select on their leading bytes (a histogram per byte, the block
// narrowing to the byte that holds the k-th item: a few passes over shared memory where a
// sort would take log^2 P), then sorts those k by a bitonic network; where k is large it
// sorts the whole part. Parts' results are sorted runs that later launches select from again
// (small k) or merge pairwise (large k).
#pragma once

typedef unsigned tessel_pos;  // a position within a line; ~0u pads
#define TESSEL_PAD_POS 0xffffffffu

__device__ __forceinline__ unsigned tessel_sort_key_f32(float v, bool descending) {
  const unsigned b = __float_as_uint(v == 0.0f ? 0.0f : v);
  const unsigned k = v != v ? 0xffffffffu : (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  return descending ? ~k : k;
}
__device__ __forceinline__ unsigned long long tessel_sort_key_f64(double v, bool descending) {
  const unsigned long long sign = 1ull << 63;
  const unsigned long long b = (unsigned long long)__double_as_longlong(v == 0.0 ? 0.0 : v);
  const unsigned long long k = v != v ? ~0ull : (b & sign) ? ~b : (b | sign);
  return descending ? ~k : k;
}
__device__ __forceinline__ unsigned tessel_sort_key_i32(int v, bool descending) {
  const unsigned k = (unsigned)v ^ 0x80000000u;
  return descending ? ~k : k;
}
__device__ __forceinline__ unsigned long long tessel_sort_key_i64(long long v, bool descending) {
  const unsigned long long k = (unsigned long long)v ^ (1ull << 63);
  return descending ? ~k : k;
}

template <typename Key>
__device__ __forceinline__ bool tessel_item_less(Key ka, tessel_pos pa, Key kb, tessel_pos pb) {
  return ka < kb || (ka == kb && pa < pb);
}

// Shared memory of a part: its items, the k selected, and a 256-bin histogram with three
// words for the bin found.
template <typename Key>
struct tessel_sort_space {
  Key* key;
  tessel_pos* pos;
  Key* chosen_key;
  tessel_pos* chosen_pos;
  int* hist;
  __device__ static tessel_sort_space at(void* smem, int part, int chosen) {
    tessel_sort_space s;
    s.key = (Key*)smem;
    s.chosen_key = s.key + part;
    s.pos = (tessel_pos*)(s.chosen_key + chosen);
    s.chosen_pos = s.pos + part;
    s.hist = (int*)(s.chosen_pos + chosen);
    return s;
  }
};

// Loads n items of a run (a later launch's input) and pads the part.
template <typename Key>
__device__ void tessel_load_items(const tessel_sort_space<Key>& s, const Key* key,
                                  const tessel_pos* pos, int n, int part) {
  for (int i = threadIdx.x; i < part; i += blockDim.x) {
    s.key[i] = i < n ? key[i] : ~(Key)0;
    s.pos[i] = i < n ? pos[i] : TESSEL_PAD_POS;
  }
}

// Sorts m (a power of two) items ascending. Callers synchronize before.
template <typename Key>
__device__ void tessel_bitonic_sort(Key* key, tessel_pos* pos, int m) {
  for (int size = 2; size <= m; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      for (int i = threadIdx.x; i < m / 2; i += blockDim.x) {
        const int lo = 2 * i - (i & (stride - 1)), hi = lo + stride;
        const Key ka = key[lo], kb = key[hi];
        const tessel_pos pa = pos[lo], pb = pos[hi];
        if (tessel_item_less(kb, pb, ka, pa) == ((lo & size) == 0)) {
          key[lo] = kb;
          key[hi] = ka;
          pos[lo] = pb;
          pos[hi] = pa;
        }
      }
      __syncthreads();
    }
  }
}

// Byte d of an item, most significant first: the key's bytes, then the position's.
template <typename Key>
__device__ __forceinline__ int tessel_item_byte(Key key, tessel_pos pos, int d) {
  constexpr int kKeyBytes = sizeof(Key);
  return d < kKeyBytes ? (int)((key >> (8 * (kKeyBytes - 1 - d))) & 255)
                       : (int)((pos >> (8 * (3 - (d - kKeyBytes)))) & 255);
}

// The leading bytes of the k-th smallest item: the k smallest are those whose leading
// bytes (masked) are at most these.
template <typename Key>
struct tessel_item_prefix {
  Key key_mask = 0, key_bits = 0;
  tessel_pos pos_mask = 0, pos_bits = 0;
  __device__ bool matches(Key key, tessel_pos pos) const {
    return (key & key_mask) == key_bits && (pos & pos_mask) == pos_bits;
  }
  __device__ bool at_most(Key key, tessel_pos pos) const {
    const Key k = key & key_mask;
    return k < key_bits || (k == key_bits && (pos & pos_mask) <= pos_bits);
  }
  __device__ void set_byte(int d, int b) {
    constexpr int kKeyBytes = sizeof(Key);
    if (d < kKeyBytes) {
      const int shift = 8 * (kKeyBytes - 1 - d);
      key_mask |= (Key)255 << shift;
      key_bits |= (Key)b << shift;
    } else {
      const int shift = 8 * (3 - (d - kKeyBytes));
      pos_mask |= 255u << shift;
      pos_bits |= (tessel_pos)b << shift;
    }
  }
};

// Warp 0 finds the bin holding the `rank`-th item (1-based) of the histogram: hist[256] the
// bin, hist[257] the items in bins before it, hist[258] the items in it.
__device__ __forceinline__ void tessel_find_bin(int* hist, int rank) {
  if (threadIdx.x >= 32) return;
  const int lane = threadIdx.x;
  int c[8], total = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) total += c[j] = hist[lane * 8 + j];
  int inclusive = total;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int up = __shfl_up_sync(0xffffffffu, inclusive, o);
    if (lane >= o) inclusive += up;
  }
  int before = inclusive - total;
  if (before < rank && rank <= inclusive) {
    for (int j = 0; j < 8; ++j) {
      if (before + c[j] >= rank) {
        hist[256] = lane * 8 + j;
        hist[257] = before;
        hist[258] = c[j];
        break;
      }
      before += c[j];
    }
  }
}

template <typename Key>
__device__ tessel_item_prefix<Key> tessel_radix_select(const tessel_sort_space<Key>& s, int n,
                                                        int k) {
  tessel_item_prefix<Key> prefix;
  int rank = k;
  for (int d = 0; d < (int)sizeof(Key) + 4; ++d) {
    for (int b = threadIdx.x; b < 256; b += blockDim.x) s.hist[b] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const Key key = s.key[i];
      const tessel_pos pos = s.pos[i];
      if (prefix.matches(key, pos)) atomicAdd(&s.hist[tessel_item_byte(key, pos, d)], 1);
    }
    __syncthreads();
    tessel_find_bin(s.hist, rank);
    __syncthreads();
    const int bin = s.hist[256], before = s.hist[257], in_bin = s.hist[258];
    prefix.set_byte(d, bin);
    rank -= before;
    if (in_bin == rank) break;  // the k-th item is the last of its bin
  }
  return prefix;
}

// The part's first min(k, n) items in order, at (*key, *pos): the chosen arrays when k is
// small enough to select (k <= chosen), else the part's own arrays, sorted whole (padded to
// `part`, a power of two). The part's n items are in s.key/s.pos, padded with ~0 items.
template <typename Key>
__device__ void tessel_sort_part(const tessel_sort_space<Key>& s, int n, int k, int part,
                                 int chosen, const Key** key, const tessel_pos** pos) {
  __syncthreads();
  if (k >= n || k > chosen) {
    tessel_bitonic_sort(s.key, s.pos, part);
    *key = s.key;
    *pos = s.pos;
    return;
  }
  const tessel_item_prefix<Key> prefix = tessel_radix_select(s, n, k);
  if (threadIdx.x == 0) s.hist[259] = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const Key kk = s.key[i];
    const tessel_pos pp = s.pos[i];
    // Pads are equal to each other, so when the k-th item is a pad, at_most matches every
    // pad: collect only real items (at most k) and pad the rest below.
    if (pp != TESSEL_PAD_POS && prefix.at_most(kk, pp)) {
      const int at = atomicAdd(&s.hist[259], 1);
      s.chosen_key[at] = kk;
      s.chosen_pos[at] = pp;
    }
  }
  int m = 1;
  while (m < k) m <<= 1;
  __syncthreads();
  for (int i = s.hist[259] + threadIdx.x; i < m; i += blockDim.x) {
    s.chosen_key[i] = ~(Key)0;
    s.chosen_pos[i] = TESSEL_PAD_POS;
  }
  __syncthreads();
  tessel_bitonic_sort(s.chosen_key, s.chosen_pos, m);
  *key = s.chosen_key;
  *pos = s.chosen_pos;
}

// Writes `count` items as a run of `slots` (pads after them).
template <typename Key>
__device__ void tessel_store_run(const Key* key, const tessel_pos* pos, int count, int slots,
                                 Key* run_key, tessel_pos* run_pos) {
  for (int i = threadIdx.x; i < slots; i += blockDim.x) {
    run_key[i] = i < count ? key[i] : ~(Key)0;
    run_pos[i] = i < count ? pos[i] : TESSEL_PAD_POS;
  }
}

// Writes the first `count` positions of line `line` (= outer * inner + i, the result laid
// out [outer, count, inner]).
__device__ __forceinline__ void tessel_store_positions(const tessel_pos* pos, int count,
                                                       long long* out, long long line,
                                                       long long inner) {
  long long* first = out + (line / inner) * count * inner + line % inner;
  for (int j = threadIdx.x; j < count; j += blockDim.x) first[(long long)j * inner] = pos[j];
}

// How many of the first `diag` items of the merge of sorted a and b come from a.
template <typename Key>
__device__ int tessel_merge_path(const Key* ak, const tessel_pos* ap, int la, const Key* bk,
                                 const tessel_pos* bp, int lb, int diag) {
  int lo = diag > lb ? diag - lb : 0, hi = diag < la ? diag : la;
  while (lo < hi) {
    const int mid = (lo + hi) / 2, j = diag - 1 - mid;
    if (tessel_item_less(bk[j], bp[j], ak[mid], ap[mid])) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// Merges runs a and b (each `run` items, adjacent in memory) into tile `tile` (kTile items)
// of their merged run: the block loads the slice of each that the tile needs, then each
// thread merges kTile / blockDim.x items of it. Where `out` is set, writes only positions
// below `count` there (the last pass) instead of the run.
template <typename Key, int kTile>
__device__ void tessel_merge_tile(const Key* run_key, const tessel_pos* run_pos, int run,
                                  int tile, Key* merged_key, tessel_pos* merged_pos,
                                  Key* smem_key, tessel_pos* smem_pos, long long* out,
                                  int count, long long line, long long inner) {
  const Key *ak = run_key, *bk = run_key + run;
  const tessel_pos *ap = run_pos, *bp = run_pos + run;
  __shared__ int bounds[4];
  if (threadIdx.x == 0) {
    const int d0 = tile * kTile, d1 = d0 + kTile;
    bounds[0] = tessel_merge_path(ak, ap, run, bk, bp, run, d0);
    bounds[1] = tessel_merge_path(ak, ap, run, bk, bp, run, d1);
    bounds[2] = d0 - bounds[0];
    bounds[3] = d1 - bounds[1];
  }
  __syncthreads();
  const int a0 = bounds[0], la = bounds[1] - a0, b0 = bounds[2], lb = bounds[3] - b0;
  for (int i = threadIdx.x; i < kTile; i += blockDim.x) {
    const bool from_a = i < la;
    smem_key[i] = from_a ? ak[a0 + i] : bk[b0 + i - la];
    smem_pos[i] = from_a ? ap[a0 + i] : bp[b0 + i - la];
  }
  __syncthreads();
  const int per = kTile / blockDim.x, d = threadIdx.x * per;
  int i = tessel_merge_path(smem_key, smem_pos, la, smem_key + la, smem_pos + la, lb, d);
  int j = d - i;
  const int first = tile * kTile + d;
  long long* line_out =
      out == nullptr ? nullptr : out + (line / inner) * count * inner + line % inner;
  for (int o = 0; o < per; ++o) {
    const bool take_a =
        j >= lb || (i < la && tessel_item_less(smem_key[i], smem_pos[i], smem_key[la + j],
                                               smem_pos[la + j]));
    const int at = take_a ? i++ : la + j++;
    if (line_out == nullptr) {
      merged_key[first + o] = smem_key[at];
      merged_pos[first + o] = smem_pos[at];
    } else if (first + o < count) {
      line_out[(long long)(first + o) * inner] = smem_pos[at];
    }
  }
}
