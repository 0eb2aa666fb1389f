// tessel/sort_threshold.cuh: the first k items of long lines by a sampled threshold
// (codegen/sort_plan.cc plans it for small k over long contiguous lines). A sample of the
// line gives a key that about 4k of the line's keys are at or below; one streaming pass
// appends those keys (and positions) to the line's candidates; one block per line sorts the
// candidates and writes the first k. Where the candidates cannot hold the first k (fewer than
// k, or more than fit: ties, or an unlucky sample), the line joins the list of lines left,
// which the parts' path, running after, walks. The candidates' order depends on the
// atomics, but the sort that follows orders them by (key, position): the same result.
#pragma once

template <typename Key>
__device__ __forceinline__ Key tessel_key_min(Key a, Key b) {
  return b < a ? b : a;
}

// The J smallest of the warp's keys, ascending, to out[0..J) (lane 0 writes).
template <int J, typename Key>
__device__ __forceinline__ void tessel_warp_smallest(Key mine, Key* out) {
  const int lane = threadIdx.x & 31;
  for (int r = 0; r < J; ++r) {
    Key best = mine;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) best = tessel_key_min(best, __shfl_xor_sync(~0u, best, o));
    const unsigned who = __ballot_sync(~0u, mine == best);
    if (lane == __ffs(who) - 1) mine = ~(Key)0;
    if (lane == 0) out[r] = best;
  }
}

// The J-th smallest of the block's keys (one a thread), in warp 0; `scratch` holds 8 J.
// A removed key becomes ~0: where real keys are ~0 the result may come out lower, and the
// line then falls to the parts' path (fewer than k candidates), never to a wrong result.
template <int J, typename Key>
__device__ Key tessel_sample_threshold(Key mine, Key* scratch) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  tessel_warp_smallest<J>(mine, scratch + warp * J);
  __syncthreads();
  Key result = ~(Key)0;
  if (warp == 0) {
    constexpr int kPer = (8 * J + 31) / 32;
    Key v[kPer];
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const int at = lane + 32 * i;
      v[i] = at < warps * J ? scratch[at] : ~(Key)0;
    }
    for (int r = 0; r < J; ++r) {
      Key m = v[0];
#pragma unroll
      for (int i = 1; i < kPer; ++i) m = tessel_key_min(m, v[i]);
      Key best = m;
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) best = tessel_key_min(best, __shfl_xor_sync(~0u, best, o));
      const unsigned who = __ballot_sync(~0u, m == best);
      if (lane == __ffs(who) - 1) {
        bool removed = false;
#pragma unroll
        for (int i = 0; i < kPer; ++i) {
          if (!removed && v[i] == best) {
            v[i] = ~(Key)0;
            removed = true;
          }
        }
      }
      result = best;
    }
  }
  return result;
}

// A part's keys (the first n items; pads past them) at or below `threshold` appended to the
// line's candidates: one atomic per warp and key slot. Past `cap` they are counted only.
template <int V, typename Key, int kItems, typename PosOf>
__device__ void tessel_filter_part(const Key (&key)[kItems], PosOf pos_of, int n, Key threshold,
                                   unsigned* count, Key* cand_key, tessel_pos* cand_pos,
                                   unsigned cap) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int j = tessel_item_index<V>(i);
    const bool take = j < n && key[i] <= threshold;
    const unsigned who = __ballot_sync(~0u, take);
    if (who == 0) continue;
    const int leader = __ffs(who) - 1;
    unsigned slot = 0;
    if (lane == leader) slot = atomicAdd(count, (unsigned)__popc(who));
    slot = __shfl_sync(~0u, slot, leader) + __popc(who & ((1u << lane) - 1u));
    if (take && slot < cap) {
      cand_key[slot] = key[i];
      cand_pos[slot] = pos_of(i, j);
    }
  }
}

// The first k of a line's candidates (sorted in shared memory: s_key and s_pos hold cap, at
// most 4 blockDim.x), their positions written to the line of `out`. False, with nothing
// written, where the candidates cannot hold the line's first k. The same for every thread.
template <typename Key>
__device__ bool tessel_choose_candidates(unsigned n, const Key* cand_key,
                                         const tessel_pos* cand_pos, int k, unsigned cap,
                                         Key* s_key, tessel_pos* s_pos, long long* out,
                                         long long line, long long inner) {
  if (n < (unsigned)k || n > cap) return false;
  int m = 2;
  while (m < (int)n) m <<= 1;
  for (int i = threadIdx.x; i < m; i += blockDim.x) {
    const bool real = i < (int)n;
    s_key[i] = real ? cand_key[i] : ~(Key)0;
    s_pos[i] = real ? cand_pos[i] : TESSEL_PAD_POS;
  }
  __syncthreads();
  tessel_bitonic_sort<4>(s_key, s_pos, m);
  tessel_store_positions(s_pos, k, out, line, inner);
  return true;
}
