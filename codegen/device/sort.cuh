// tessel/sort.cuh: sorting lines along an axis (codegen/sort_codegen.cc writes the entry
// points). A line's elements become items (key, position): the key is an unsigned integer
// that orders as the values do (NaN the largest, -0 equal to 0, descending sorts flipped),
// and the position breaks ties, so items are distinct and any correct sort is stable.
//
// A block holds one part of a line (up to P items): a thread's i-th key, in registers, is
// the part's item j = tessel_item_index<V>(i), whose position a functor gives (computed from
// j for the input, loaded with the keys for a run). Where k is small enough to select, the
// block keeps the k smallest items: a histogram of the keys' leading bytes finds the bin of
// the k-th item; items in lower bins are chosen, those in its bin (the candidates, usually
// few) go to shared memory, where a radix select over their further bytes narrows to the
// k-th item (a few passes where a sort would take log^2 P). Then a bitonic network sorts the
// k. Where k is large the block sorts the whole part in shared memory. Parts' results are
// sorted runs that later launches select from again (small k) or merge pairwise (large k).
#pragma once

typedef unsigned tessel_pos;  // a position within a line; ~0u pads
#define TESSEL_PAD_POS 0xffffffffu

// The part's item that is a thread's i-th: V contiguous items per thread per row of
// V x blockDim.x (V = 4 where the input is read as vectors), so neighbouring threads read
// neighbouring items.
template <int V>
__device__ __forceinline__ int tessel_item_index(int i) {
  return (i / V) * (V * (int)blockDim.x) + (int)threadIdx.x * V + i % V;
}

// Floats: flip every bit of a negative value, the sign bit of a positive one (-0 first made
// +0); a descending key flips them all again.
__device__ __forceinline__ unsigned tessel_sort_key_f32(float v, bool descending) {
  unsigned b = __float_as_uint(v);
  b = b == 0x80000000u ? 0u : b;
  const unsigned flip = ((unsigned)((int)b >> 31) | 0x80000000u) ^ (descending ? ~0u : 0u);
  return v != v ? (descending ? 0u : ~0u) : b ^ flip;
}
__device__ __forceinline__ unsigned long long tessel_sort_key_f64(double v, bool descending) {
  unsigned long long b = (unsigned long long)__double_as_longlong(v);
  const unsigned long long sign = 1ull << 63;
  b = b == sign ? 0ull : b;
  const unsigned long long flip =
      ((unsigned long long)((long long)b >> 63) | sign) ^ (descending ? ~0ull : 0ull);
  return v != v ? (descending ? 0ull : ~0ull) : b ^ flip;
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

// Shared memory of a part: the items chosen (a selection: `chosen` of them) or all the
// part's (a whole sort), a selection's candidates (`candidates` of them), a 256-bin histogram
// with three words for the bin found and two counters.
template <typename Key>
struct tessel_sort_space {
  Key *key, *candidate_key;
  tessel_pos *pos, *candidate_pos;
  int* hist;
  __device__ static tessel_sort_space at(void* smem, int chosen, int candidates) {
    tessel_sort_space s;
    s.key = (Key*)smem;
    s.candidate_key = s.key + chosen;
    s.pos = (tessel_pos*)(s.candidate_key + candidates);
    s.candidate_pos = s.pos + chosen;
    s.hist = (int*)(s.candidate_pos + candidates);
    return s;
  }
};

// A thread's items of a run (a later launch's input) of n items, pads after them. The
// positions are loaded with the keys, not when an item is chosen: one latency, not a chain.
template <typename Key, int kItems>
__device__ __forceinline__ void tessel_load_run_items(const Key* key, const tessel_pos* pos, int n,
                                                      Key (&item_key)[kItems],
                                                      tessel_pos (&item_pos)[kItems]) {
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int j = tessel_item_index<1>(i);
    item_key[i] = j < n ? key[j] : ~(Key)0;
    item_pos[i] = j < n ? pos[j] : TESSEL_PAD_POS;
  }
}

// Where in `counter`'s array this thread appends its `count` items: one atomic per warp,
// which calls it whole.
__device__ __forceinline__ int tessel_warp_append(int count, int* counter) {
  const int lane = threadIdx.x & 31;
  int inclusive = count;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int up = __shfl_up_sync(0xffffffffu, inclusive, o);
    if (lane >= o) inclusive += up;
  }
  int base = 0;
  if (lane == 31 && inclusive > 0) base = atomicAdd(counter, inclusive);
  return __shfl_sync(0xffffffffu, base, 31) + inclusive - count;
}

// One side of a bitonic compare-exchange: item e (of sequences of `size`, pairs `stride`
// apart) keeps the smaller of (k, p) and the other's if it is the lower of an ascending pair
// or the upper of a descending one, else the larger.
template <typename Key>
__device__ __forceinline__ void tessel_bitonic_keep(Key& k, tessel_pos& p, Key ok, tessel_pos op,
                                                    int e, int size, int stride) {
  const bool keep_smaller = ((e & stride) == 0) == ((e & size) == 0);
  if (tessel_item_less(ok, op, k, p) == keep_smaller) {
    k = ok;
    p = op;
  }
}

// Sorts m (a power of two, at most E blockDim.x) items ascending in registers: item e is
// thread e % blockDim.x's e / blockDim.x. Pairs in one thread compare in registers, pairs in
// one warp exchange by shuffles, and only pairs across warps through shared memory (two
// barriers a stage: most of a network's stages take none). Callers synchronize before.
template <int E, typename Key>
__device__ void tessel_bitonic_sort_in_registers(Key* key, tessel_pos* pos, int m) {
  const int t = threadIdx.x, b = blockDim.x;
  Key k[E];
  tessel_pos p[E];
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const int e = i * b + t;
    k[i] = e < m ? key[e] : ~(Key)0;
    p[i] = e < m ? pos[e] : TESSEL_PAD_POS;
  }
  for (int size = 2; size <= m; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      if (stride >= b) {  // both in this thread: item i and i + stride / b
#pragma unroll
        for (int s = E / 2; s > 0; s >>= 1) {
          if (s * b != stride) continue;
#pragma unroll
          for (int i = 0; i < E; ++i) {
            if (i & s) continue;
            const Key lk = k[i];
            const tessel_pos lp = p[i];
            tessel_bitonic_keep(k[i], p[i], k[i + s], p[i + s], i * b + t, size, stride);
            tessel_bitonic_keep(k[i + s], p[i + s], lk, lp, (i + s) * b + t, size, stride);
          }
        }
      } else if (stride >= 32) {  // across warps
        __syncthreads();          // the last exchange's reads are done
#pragma unroll
        for (int i = 0; i < E; ++i) {
          if (i * b + t < m) key[i * b + t] = k[i], pos[i * b + t] = p[i];
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < E; ++i) {
          const int e = i * b + t;
          if (e < m) {
            tessel_bitonic_keep(k[i], p[i], key[e ^ stride], pos[e ^ stride], e, size, stride);
          }
        }
      } else {  // in the warp
#pragma unroll
        for (int i = 0; i < E; ++i) {
          const Key ok = __shfl_xor_sync(~0u, k[i], stride);
          const tessel_pos op = __shfl_xor_sync(~0u, p[i], stride);
          tessel_bitonic_keep(k[i], p[i], ok, op, i * b + t, size, stride);
        }
      }
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < E; ++i) {
    if (i * b + t < m) key[i * b + t] = k[i], pos[i * b + t] = p[i];
  }
  __syncthreads();
}

// Sorts m (a power of two, at most kMaxE blockDim.x) items of shared memory ascending.
// Callers synchronize before; kMaxE bounds the variants compiled where m is not a constant.
template <int kMaxE, typename Key>
__device__ __forceinline__ void tessel_bitonic_sort(Key* key, tessel_pos* pos, int m) {
  const int b = blockDim.x;
  if (m <= b) return tessel_bitonic_sort_in_registers<1>(key, pos, m);
  if constexpr (kMaxE >= 2) {
    if (m <= 2 * b) return tessel_bitonic_sort_in_registers<2>(key, pos, m);
  }
  if constexpr (kMaxE >= 4) {
    if (m <= 4 * b) return tessel_bitonic_sort_in_registers<4>(key, pos, m);
  }
  if constexpr (kMaxE >= 8) {
    if (m <= 8 * b) return tessel_bitonic_sort_in_registers<8>(key, pos, m);
  }
  if constexpr (kMaxE >= 16) tessel_bitonic_sort_in_registers<16>(key, pos, m);
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
  if (threadIdx.x < 32) {
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
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (before < rank && before + c[j] >= rank) {
        hist[256] = lane * 8 + j;
        hist[257] = before;
        hist[258] = c[j];
      }
      before += c[j];
    }
  }
}

// Narrows `prefix` (its first `from` bytes set) to the leading bytes of the rank-th of the
// n items at key/pos that match it.
template <typename Key>
__device__ tessel_item_prefix<Key> tessel_radix_select(int* hist, const Key* key,
                                                       const tessel_pos* pos, int n, int rank,
                                                       tessel_item_prefix<Key> prefix, int from) {
  for (int d = from; d < (int)sizeof(Key) + 4; ++d) {
    for (int b = threadIdx.x; b < 256; b += blockDim.x) hist[b] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      if (prefix.matches(key[i], pos[i])) atomicAdd(&hist[tessel_item_byte(key[i], pos[i], d)], 1);
    }
    __syncthreads();
    tessel_find_bin(hist, rank);
    __syncthreads();
    const int bin = hist[256], before = hist[257], in_bin = hist[258];
    prefix.set_byte(d, bin);
    rank -= before;
    if (in_bin == rank) break;  // the rank-th item is the last of its bin
  }
  return prefix;
}

// The part's first min(k, n) items in order, sorted at s.key/s.pos (k <= the space's chosen;
// the candidates' space holds the part). Pads (a run's, after its count; ~0 keys, the largest)
// are never collected: when the k-th item is a pad, pads fill the sorted k instead.
template <int V, int kSortE, typename Key, int kItems, typename PosOf>
__device__ void tessel_select_part(const tessel_sort_space<Key>& s, const Key (&key)[kItems],
                                   PosOf pos_of, int n, int k) {
  constexpr int kShift = 8 * (sizeof(Key) - 1);
  int* const chosen = s.hist + 259;
  int* const candidates = s.hist + 260;
  // Items past n (keys ~0) are counted too, unguarded, and taken off bin 255 beforehand.
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    s.hist[b] = b == 255 ? n - kItems * (int)blockDim.x : 0;
  }
  if (threadIdx.x == 0) *chosen = *candidates = 0;
  __syncthreads();
  int bin = 256, rank = 0, in_bin = 0;  // k >= n: every item is chosen
  if (k < n) {
#pragma unroll
    for (int i = 0; i < kItems; ++i) atomicAdd(&s.hist[(int)(key[i] >> kShift)], 1);
    __syncthreads();
    tessel_find_bin(s.hist, k);
    __syncthreads();
    bin = s.hist[256];
    rank = k - s.hist[257];
    in_bin = s.hist[258];
  }
  // Item j's leading byte, 257 past the part's items (never chosen, never a candidate).
  auto byte_of = [&](int i) { return tessel_item_index<V>(i) < n ? (int)(key[i] >> kShift) : 257; };
  int mine = 0;  // counted first, so that the candidates take one atomic per warp
#pragma unroll
  for (int i = 0; i < kItems; ++i) mine += byte_of(i) == bin;
  int at = tessel_warp_append(mine, candidates);
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int j = tessel_item_index<V>(i), b = byte_of(i);
    if (b < bin) {  // fewer than k of these
      const tessel_pos p = pos_of(i, j);
      if (p != TESSEL_PAD_POS) {
        const int c = atomicAdd(chosen, 1);
        s.key[c] = key[i];
        s.pos[c] = p;
      }
    } else if (b == bin) {
      s.candidate_key[at] = key[i];
      s.candidate_pos[at++] = pos_of(i, j);
    }
  }
  __syncthreads();
  const int count = *candidates;
  tessel_item_prefix<Key> prefix;
  prefix.set_byte(0, bin);
  if (in_bin != rank) {
    prefix = tessel_radix_select(s.hist, s.candidate_key, s.candidate_pos, count, rank, prefix, 1);
  }
  for (int c = threadIdx.x; c < count; c += blockDim.x) {
    const Key kc = s.candidate_key[c];
    const tessel_pos pc = s.candidate_pos[c];
    if (pc != TESSEL_PAD_POS && prefix.at_most(kc, pc)) {
      const int at = atomicAdd(chosen, 1);
      s.key[at] = kc;
      s.pos[at] = pc;
    }
  }
  int m = 1;
  while (m < k) m <<= 1;
  __syncthreads();
  for (int i = *chosen + threadIdx.x; i < m; i += blockDim.x) {
    s.key[i] = ~(Key)0;
    s.pos[i] = TESSEL_PAD_POS;
  }
  __syncthreads();
  tessel_bitonic_sort<kSortE>(s.key, s.pos, m);
}

// The part's items sorted whole at s.key/s.pos (`part` of them, a power of two, pads last).
template <int V, int kSortE, typename Key, int kItems, typename PosOf>
__device__ void tessel_sort_whole_part(const tessel_sort_space<Key>& s, const Key (&key)[kItems],
                                       PosOf pos_of, int n, int part) {
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int j = tessel_item_index<V>(i);
    if (j < part) {
      s.key[j] = key[i];
      s.pos[j] = j < n ? pos_of(i, j) : TESSEL_PAD_POS;
    }
  }
  for (int j = kItems * blockDim.x + threadIdx.x; j < part; j += blockDim.x) {
    s.key[j] = ~(Key)0;
    s.pos[j] = TESSEL_PAD_POS;
  }
  __syncthreads();
  tessel_bitonic_sort<kSortE>(s.key, s.pos, part);
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

// Where line `line` (= outer * inner + i) of a result laid out [outer, count, inner] starts.
__device__ __forceinline__ long long* tessel_line_start(long long* out, int count, long long line,
                                                        long long inner) {
  return out + (line / inner) * count * inner + line % inner;
}

// Writes the first `count` positions of line `line` of the result.
__device__ __forceinline__ void tessel_store_positions(const tessel_pos* pos, int count,
                                                       long long* out, long long line,
                                                       long long inner) {
  long long* first = tessel_line_start(out, count, line, inner);
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
__device__ void tessel_merge_tile(const Key* run_key, const tessel_pos* run_pos, int run, int tile,
                                  Key* merged_key, tessel_pos* merged_pos, Key* smem_key,
                                  tessel_pos* smem_pos, long long* out, int count, long long line,
                                  long long inner) {
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
  long long* line_out = out == nullptr ? nullptr : tessel_line_start(out, count, line, inner);
  for (int o = 0; o < per; ++o) {
    const bool take_a = j >= lb || (i < la && tessel_item_less(smem_key[i], smem_pos[i],
                                                               smem_key[la + j], smem_pos[la + j]));
    const int at = take_a ? i++ : la + j++;
    if (line_out == nullptr) {
      merged_key[first + o] = smem_key[at];
      merged_pos[first + o] = smem_pos[at];
    } else if (first + o < count) {
      line_out[(long long)(first + o) * inner] = smem_pos[at];
    }
  }
}
