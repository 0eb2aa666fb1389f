// tessel device library: attention on Hopper (sm_90a), handed to NVRTC as the named header
// "tessel/attention_sm90.cuh". O = softmax(f(Q K^T)) V for (batch, query tile) work tiles that
// a persistent block walks, never writing the scores: the FlashAttention-3 forward loop on
// wgmma.
//
// A producer warpgroup and BQ / 64 consumers (tiles of 128 queries, or 192 at D = 64 as in
// FlashAttention-3: three consumers there hide more of the softmax's latency):
// - the producer, one thread of warpgroup 0: a work tile's Q once, then K and V tiles of BK
//   keys (C::BK: 176 without masks at D = 128, 80 at D = 256, else 128) by TMA (128-byte
//   swizzle) into a ring of STAGES stages, each with full/empty mbarriers of its own for K
//   and for V, so that Q K^T starts before V has landed;
// - the consumers, warpgroups 1 .. BQ / 64, each with 64 query rows (one alone where S_Q <=
//   64): S = Q K^T by wgmma straight from shared memory (both K-major), the generated `score`
//   (f: scale, bias, masks), the online softmax in f32 with exp2, then O += P V by wgmma with
//   P in registers (the S accumulators' layout is the A fragment's) and V MN-major from
//   shared memory.
// Each consumer overlaps its softmax with the tensor cores: tile j's Q K^T is issued together
// with tile j-1's P V, and the softmax of tile j (max, exp, sum) runs while P V is in flight;
// only the rescale of O and the packing of P wait for it. The consumers take turns to issue
// (ping-pong), so that one's softmax also runs under the others' products. A block visits
// only the key tiles `key_range` leaves (causal and window masks). Work tiles go longest
// first: a batch entry's last query tiles first, and where C::TICKETS, across groups of
// C::GROUP entries, each block taking the next by ticket (tessel_attention_sm90_work).
//
// The accumulators of an m64nN wgmma, float[N / 2] a thread, are exactly the m16n8 fragment
// layout of each warp's 16 rows that tessel_attention_sm80 documents (s[j][e] = acc[4 j + e]),
// so the generated `score` and `epilogue` are the same callbacks.
//
// C provides what tessel_attention_sm80 documents but the offsets and row steps (D, COLS,
// SQ, SK, BATCH, SPLITS, F16, T), the tiles BQ and BK, the work order (TICKETS, GROUP), and
// `static __device__ tessel_attention_coords q_coords(int)`, `k_coords(int)`,
// `v_coords(int)`: a batch entry's coordinates in the maps' batch dimensions. The host passes
// TMA maps of q, k and v as 5-D [.., rows, COLS] (the views' own steps: the batch axes need
// not be contiguous) with boxes of 64 columns x BQ rows (q) or BK rows (k, v); columns past
// COLS read as zeros.
#pragma once
#include "tessel/attention_sm90_producer.cuh"  // the layout, the work tiles, the producer
#include "tessel/attention_split_merge.cuh"

// S = Q K^T for consumer c's 64 rows (descriptor `q`) over the K tile (descriptor `k`): D / 16
// steps of k16, 32 bytes each inside a 128-byte chunk (both operands K-major, 8-row groups
// 1024 bytes apart).
template <class C>
__device__ __forceinline__ void tessel_attention_sm90_scores(
    float (&s)[tessel_attention_sm90_layout<C>::BK / 2], unsigned long long q,
    unsigned long long k) {
  using L = tessel_attention_sm90_layout<C>;
  tessel_wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < C::D / 16; ++kk) {
    const unsigned chunk = kk / 4, within = (kk % 4) * 32;
    const unsigned long long a = tessel_wgmma_desc_advance(q, chunk * L::BQ * 128 + within);
    const unsigned long long b = tessel_wgmma_desc_advance(k, chunk * L::BK * 128 + within);
    tessel_wgmma<C::F16, 0, 0>(s, a, b, kk > 0 ? 1 : 0);
  }
  tessel_wgmma_commit();
}

// O += P V over the V tile (descriptor `v`): BK / 16 steps of k16 (16 keys, 2048 bytes of
// MN-major rows each); V's 64-column chunks lie BK rows of 128 bytes apart.
template <class C>
__device__ __forceinline__ void tessel_attention_sm90_values(
    float (&o)[C::D / 2], const unsigned (&p)[tessel_attention_sm90_layout<C>::BK / 16][4],
    unsigned long long v) {
  using L = tessel_attention_sm90_layout<C>;
  tessel_wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < L::BK / 16; ++kk) {
    tessel_wgmma_rs<C::F16, 1>(o, p[kk], tessel_wgmma_desc_advance(v, kk * 2048), 1);
  }
  tessel_wgmma_commit();
}

// `key_range`, `score` and `epilogue` as tessel_attention_sm80 takes them; `ws` holds the
// shares where C::SPLITS > 1, the ticket counter where C::TICKETS.
// Persistent: a block walks several work tiles (tessel_attention_sm90_producer says which), so
// that the next tile's Q and first K and V load while this one's last products and stores run.
template <class C, class KeyRange, class Score, class Epilogue>
__device__ __forceinline__ void tessel_attention_sm90(const tessel_tensor_map& q_map,
                                                      const tessel_tensor_map& k_map,
                                                      const tessel_tensor_map& v_map, float* ws,
                                                      KeyRange key_range, Score score,
                                                      Epilogue epilogue) {
  using L = tessel_attention_sm90_layout<C>;
  extern __shared__ unsigned char tessel_attention_raw[];
  unsigned char* sq =
      (unsigned char*)(((unsigned long long)tessel_attention_raw + 1023) & ~1023ull);
  unsigned char* sk = sq + L::kQBytes;
  unsigned char* sv = sk + L::STAGES * L::kTileBytes;
  const tessel_attention_sm90_barriers bar =
      tessel_attention_sm90_barriers_at<C>((unsigned long long*)(sv + L::STAGES * L::kTileBytes));
  if (threadIdx.x == 0) {
    tessel_mbar_init(bar.q_full, 1);
    tessel_mbar_init(bar.q_empty, L::kConsumers);  // one arrive per consumer warpgroup
    for (int s = 0; s < L::STAGES; ++s) {
      tessel_mbar_init(&bar.k_full[s], 1);  // the producer's arrive plus the TMA bytes
      tessel_mbar_init(&bar.v_full[s], 1);
      tessel_mbar_init(&bar.k_empty[s], L::kConsumers);
      tessel_mbar_init(&bar.v_empty[s], L::kConsumers);
    }
    tessel_fence_mbar_init();
  }
  // Every block is resident (a persistent grid): the next kernel's blocks (the split
  // combine's) may take the SMs this grid leaves free and run up to their own wait.
  tessel_launch_dependents();
  __syncthreads();
  // No global memory before this: the kernel before may still be writing or reading it.
  tessel_grid_dependency_wait();
  // Read from lane 0, the warpgroup is uniform to ptxas: descriptors built from it stay in
  // uniform registers (no R2UR before each wgmma).
  const int warpgroup = __shfl_sync(0xffffffffu, threadIdx.x / 128, 0);
  if (warpgroup == 0) {
    tessel_setmaxnreg_dec<L::kProducerRegisters>();
    if (threadIdx.x == 0) {
      tessel_attention_sm90_producer<C>(sq, sk, sv, bar, ws, q_map, k_map, v_map, key_range);
    }
    return;
  }
  tessel_setmaxnreg_inc<L::kConsumerRegisters>();
  const int c = warpgroup - 1;
  if (c >= L::kConsumers) return;  // no query rows
  const bool signals = threadIdx.x % 128 == 0;
  // Descriptors of consumer c's Q rows and of the first K and V stages; the others are
  // offsets from them.
  const unsigned long long q_desc =
      tessel_opaque(tessel_wgmma_desc(tessel_smem(sq) + c * 64 * 128, 16, 1024));
  const unsigned long long k_desc = tessel_opaque(tessel_wgmma_desc(tessel_smem(sk), 16, 1024));
  const unsigned long long v_desc =
      tessel_opaque(tessel_wgmma_desc(tessel_smem(sv), L::BK * 128, 1024));
  auto k_stage = [&](int n) {
    return tessel_wgmma_desc_advance(k_desc, n % L::STAGES * L::kTileBytes);
  };
  auto v_stage = [&](int n) {
    return tessel_wgmma_desc_advance(v_desc, n % L::STAGES * L::kTileBytes);
  };
  auto phase = [](int n) { return (unsigned)(n / L::STAGES) & 1; };
  float s[L::BK / 2], o[C::D / 2];
  unsigned p[L::BK / 16][4];
  float(&sf)[L::BK / 8][4] = *reinterpret_cast<float(*)[L::BK / 8][4]>(s);
  float(&of)[C::D / 8][4] = *reinterpret_cast<float(*)[C::D / 8][4]>(o);
  // Ping-pong: the consumers take turns to issue their wgmmas (named barriers 1 .. kConsumers,
  // in a ring), so that one's softmax runs while another's products occupy the tensor cores.
  // The last consumer lets consumer 0 go first, and consumer 0 takes one turn more at the
  // end, which balances the barriers' arrivals for any number of issues. A consumer alone
  // takes no turns.
  constexpr int K = L::kConsumers;
  auto take_turn = [&] {
    if constexpr (K > 1) tessel_named_barrier(1 + c, 256);
  };
  auto pass_turn = [&] {
    if constexpr (K > 1) tessel_named_barrier_arrive(1 + (c + 1) % K, 256);
  };
  if (K > 1 && c == K - 1) tessel_named_barrier_arrive(1, 256);
  int n = 0;  // key tiles consumed before this work tile
  for (int round = 0;; ++round) {
    int t = blockIdx.x + round * gridDim.x;
    if constexpr (C::TICKETS) {
      // Lane 0's, so that ptxas knows it uniform: the key tiles' ring positions and the wgmma
      // descriptors derived from it stay in uniform registers (a plain load cost 32 R2UR a key
      // tile).
      tessel_named_barrier(L::kNumberReady, L::kNumberThreads);
      t = __shfl_sync(0xffffffffu, *tessel_attention_sm90_slot<C>(bar), 0);
      tessel_named_barrier_arrive(L::kNumberRead, L::kNumberThreads);
    }
    if (t >= L::kWork) break;
    tessel_mbar_wait(bar.q_full, round & 1);
    const tessel_attention_work w = tessel_attention_sm90_work<C>(t, key_range);
    const int tiles = w.kt_end - w.kt_begin;  // none: every row is -inf only, and gives NaN
    const int row0 = w.q0 + 64 * c + 16 * (threadIdx.x / 32 % 4);  // the warp's first row
    float m[2] = {TESSEL_NEG_INF, TESSEL_NEG_INF}, l[2] = {0.0f, 0.0f}, rescale[2];
#pragma unroll
    for (int i = 0; i < C::D / 2; ++i) o[i] = 0.0f;
    // f and the online softmax on tile kt's scores (exp in place); the factors that rescale O.
    // `guard` (a constant at each call): keys at or past S_K may be in the tile.
    auto softmax = [&](int kt, bool guard) {
      score(w.batch, sf, row0, kt * L::BK);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        rescale[h] = tessel_attention_online_softmax(sf, h, m[h], l[h], kt * L::BK, C::SK, guard);
      }
    };
    auto pack = [&] {
#pragma unroll
      for (int kk = 0; kk < L::BK / 16; ++kk) tessel_attention_pack_p<C::F16>(sf, kk, p[kk]);
    };
    // Tile 0 apart, so that the loop's body is straight-line code: ptxas tracks which wgmmas
    // are in flight only along it (a branch on i > 0 would make it serialize them).
    if (tiles > 0) {
      tessel_mbar_wait(&bar.k_full[n % L::STAGES], phase(n));
      take_turn();
      tessel_attention_sm90_scores<C>(s, q_desc, k_stage(n));
      pass_turn();
      tessel_wgmma_wait<0>();
      tessel_fence_registers(s);
      if (signals) tessel_mbar_arrive(&bar.k_empty[n % L::STAGES]);
      if (L::kRagged && tiles == 1) {
        softmax(w.kt_begin, true);
      } else {
        softmax(w.kt_begin, false);
      }
      pack();
    }
    // Key tile i of the work tile's, after the first.
    auto step = [&](int i, bool guard) {
      const int j = n + i;  // this key tile's place in the ring; j - 1: the last one's
      tessel_mbar_wait(&bar.k_full[j % L::STAGES], phase(j));
      tessel_mbar_wait(&bar.v_full[(j - 1) % L::STAGES], phase(j - 1));
      take_turn();
      tessel_attention_sm90_scores<C>(s, q_desc, k_stage(j));
      // The previous tile's P V, in flight with this tile's Q K^T and softmax.
      tessel_attention_sm90_values<C>(o, p, v_stage(j - 1));
      pass_turn();
      tessel_wgmma_wait<1>();
      tessel_fence_registers(s);
      if (signals) tessel_mbar_arrive(&bar.k_empty[j % L::STAGES]);
      softmax(w.kt_begin + i, guard);
      tessel_wgmma_wait<0>();  // P V has retired: O and P are the registers' own again
      tessel_fence_registers(o);
      tessel_fence_registers(p);
      if (signals) tessel_mbar_arrive(&bar.v_empty[(j - 1) % L::STAGES]);
#pragma unroll
      for (int e = 0; e < C::D / 8; ++e) {
        of[e][0] *= rescale[0], of[e][1] *= rescale[0];
        of[e][2] *= rescale[1], of[e][3] *= rescale[1];
      }
      pack();
    };
#pragma unroll 1
    for (int i = 1; i < (L::kRagged ? tiles - 1 : tiles); ++i) step(i, false);
    if (L::kRagged && tiles > 1) step(tiles - 1, true);
    // Q's last product has retired: the producer may load the next work tile's. Without key
    // tiles no turn or product has gathered the warpgroup since its wait for Q, so it meets
    // here first: a warp still to wait for this Q would otherwise see the next one's phase.
    // A consumer alone takes no turns either: it meets here each time (a bar.sync a work tile)
    // before its signalling thread lets the producer load the next work tile's Q.
    if (tiles <= 0 || K == 1) tessel_named_barrier(4 + c, 128);  // past the turns' barriers
    // The merge of a split by its last share passes its rows through Q's tile: Q empty after.
    constexpr bool kMergeHere = C::SPLITS > 1 && C::MERGE_LAST;
    if (!kMergeHere && signals) tessel_mbar_arrive(bar.q_empty);
    // A split's counter, read while the last products run: by then an earlier share of the
    // rows has likely put this launch's tag there (tessel_attention_finish_split).
    unsigned long long seen = 0;
    if (kMergeHere && signals && w.q0 + 64 * c < C::SQ) {
      seen = *(volatile unsigned long long*)tessel_attention_split_counter<C>(ws, w.batch,
                                                                              w.q0 + 64 * c);
    }
    if (tiles > 0) {
      const int j = n + tiles - 1;
      tessel_mbar_wait(&bar.v_full[j % L::STAGES], phase(j));
      take_turn();
      tessel_attention_sm90_values<C>(o, p, v_stage(j));
      pass_turn();
      tessel_wgmma_wait<0>();
      tessel_fence_registers(o);
      tessel_fence_registers(p);
      if (signals) tessel_mbar_arrive(&bar.v_empty[j % L::STAGES]);
    }
    n += tiles;
    if constexpr (kMergeHere) {
      tessel_attention_store_partial<C>(ws, of, m, l, w.batch, w.split, row0);
      // Words 1 .. 3 after the slot: the consumers' verdicts (the slot serves tickets only).
      volatile unsigned* verdict = (volatile unsigned*)tessel_attention_sm90_slot<C>(bar) + 1 + c;
      tessel_attention_finish_split<C>(ws, sq, c, w.batch, w.q0 + 64 * c, seen, verdict, 4 + c,
                                       epilogue);
      if (signals) tessel_mbar_arrive(bar.q_empty);
    } else if constexpr (C::SPLITS > 1) {
      tessel_attention_store_partial<C>(ws, of, m, l, w.batch, w.split, row0);
    } else {
      tessel_attention_normalize(of, l);
      epilogue(w.batch, of, row0);
    }
  }
  if (c == 0) take_turn();
}
