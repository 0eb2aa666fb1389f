// tessel device library: attention on Hopper (sm_90a), handed to NVRTC as the named header
// "tessel/attention_sm90.cuh". O = softmax(f(Q K^T)) V for one (batch, 128-query tile) per
// block, never writing the scores: the FlashAttention-3 forward loop on wgmma.
//
// Three warpgroups:
// - the producer, one thread of warpgroup 0: Q's tile once, then K and V tiles of 128 keys by
//   TMA (128-byte swizzle) into a ring of STAGES stages, each with full/empty mbarriers of its
//   own for K and for V, so that Q K^T starts before V has landed;
// - two consumers, warpgroups 1 and 2, each with 64 query rows: S = Q K^T by wgmma straight
//   from shared memory (both K-major), the generated `score` (f: scale, bias, masks), the
//   online softmax in f32 with exp2, then O += P V by wgmma with P in registers (the S
//   accumulators' layout is the A fragment's) and V MN-major from shared memory.
// Each consumer overlaps its softmax with the tensor cores: tile j's Q K^T is issued together
// with tile j-1's P V, and the softmax of tile j (max, exp, sum) runs while P V is in flight;
// only the rescale of O and the packing of P wait for it. The two consumers take turns to
// issue (ping-pong), so that one's softmax also runs under the other's products. A block
// visits only the key tiles `key_range` leaves (causal and window masks), last query tiles
// of a batch entry first.
//
// The accumulators of an m64nN wgmma, float[N / 2] a thread, are exactly the m16n8 fragment
// layout of each warp's 16 rows that tessel_attention_sm80 documents (s[j][e] = acc[4 j + e]),
// so the generated `score(s, row0, key0)` and `epilogue(o, row0)` are the same callbacks.
//
// C provides what tessel_attention_sm80 documents but the offsets and row steps (D, COLS,
// SQ, SK, BATCH, SPLITS, F16, T), and `static __device__ tessel_attention_coords
// q_coords(int)`, `k_coords(int)`, `v_coords(int)`: a batch entry's coordinates in the maps'
// batch dimensions. The host passes TMA maps of q, k and v as 5-D [.., rows, COLS] (the
// views' own steps: the batch axes need not be contiguous) with boxes of 64 columns x 128
// rows; columns past COLS read as zeros.
#pragma once
#include "tessel/attention_sm80.cuh"

struct tessel_attention_coords {
  int c2, c3, c4;  // dims 2 .. 4 of a 5-D map
};

template <class C>
struct tessel_attention_sm90_layout {
  static constexpr int BQ = 128, BK = 128;
  static constexpr int STAGES = C::D == 64 ? 4 : 2;
  static constexpr int kChunks = C::D / 64;         // 128-byte column chunks (TMA boxes) of a row
  static constexpr int kQBytes = BQ * C::D * 2;     // Q's tile, chunk after chunk
  static constexpr int kTileBytes = BK * C::D * 2;  // one K or V tile
  static constexpr int kBarriers = 1 + 4 * STAGES;  // Q; K full, K empty, V full, V empty
  // 1024 bytes of slack align the tiles to the swizzle's 1024-byte atom.
  static constexpr int kSmemBytes = 1024 + kQBytes + 2 * STAGES * kTileBytes + kBarriers * 8;
  static constexpr int kQueryTiles = (C::SQ + BQ - 1) / BQ;
  // setmaxnreg: 384 x 168 registers from launch (__launch_bounds__(384, 1)); the producer
  // gives back what the consumers take.
  static constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;
  static_assert(128 * kProducerRegisters + 256 * kConsumerRegisters <= 384 * 168,
                "setmaxnreg asks for too many registers");
  static_assert(C::D == 64 || C::D == 128, "head dimension 64 or 128");
  static_assert(C::SMEM >= kSmemBytes, "the host reserves too little shared memory");
};

template <class C>
__device__ __forceinline__ void tessel_attention_sm90_producer(
    unsigned char* sq, unsigned char* sk, unsigned char* sv, unsigned long long* bars,
    const tessel_tensor_map& q_map, const tessel_tensor_map& k_map, const tessel_tensor_map& v_map,
    int batch, int q0, int kt_begin, int kt_end) {
  using L = tessel_attention_sm90_layout<C>;
  unsigned long long *q_full = bars, *k_full = bars + 1, *k_empty = k_full + L::STAGES;
  unsigned long long *v_full = k_empty + L::STAGES, *v_empty = v_full + L::STAGES;
  const tessel_attention_coords qb = C::q_coords(batch), kb = C::k_coords(batch),
                                vb = C::v_coords(batch);
  tessel_mbar_arrive_expect_tx(q_full, L::kQBytes);
#pragma unroll
  for (int j = 0; j < L::kChunks; ++j) {
    tessel_tma_load_5d(sq + j * L::BQ * 128, &q_map, q_full, 64 * j, q0, qb.c2, qb.c3, qb.c4);
  }
  for (int kt = kt_begin; kt < kt_end; ++kt) {
    const int stage = (kt - kt_begin) % L::STAGES;
    const unsigned phase = ((kt - kt_begin) / L::STAGES) & 1;
    tessel_mbar_wait(&k_empty[stage], phase ^ 1);  // a fresh barrier passes parity 1
    tessel_mbar_arrive_expect_tx(&k_full[stage], L::kTileBytes);
#pragma unroll
    for (int j = 0; j < L::kChunks; ++j) {
      tessel_tma_load_5d(sk + stage * L::kTileBytes + j * L::BK * 128, &k_map, &k_full[stage],
                         64 * j, kt * L::BK, kb.c2, kb.c3, kb.c4);
    }
    tessel_mbar_wait(&v_empty[stage], phase ^ 1);
    tessel_mbar_arrive_expect_tx(&v_full[stage], L::kTileBytes);
#pragma unroll
    for (int j = 0; j < L::kChunks; ++j) {
      tessel_tma_load_5d(sv + stage * L::kTileBytes + j * L::BK * 128, &v_map, &v_full[stage],
                         64 * j, kt * L::BK, vb.c2, vb.c3, vb.c4);
    }
  }
}

// S = Q K^T for consumer c's 64 rows over the K tile at `k_tile`: D / 16 steps of k16, 32
// bytes each inside a 128-byte chunk (both operands K-major, 8-row groups 1024 bytes apart).
template <class C>
__device__ __forceinline__ void tessel_attention_sm90_scores(
    float (&s)[tessel_attention_sm90_layout<C>::BK / 2], unsigned q_rows, unsigned k_tile) {
  using L = tessel_attention_sm90_layout<C>;
  tessel_wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < C::D / 16; ++kk) {
    const unsigned chunk = kk / 4, within = (kk % 4) * 32;
    const unsigned long long a = tessel_wgmma_desc(q_rows + chunk * L::BQ * 128 + within, 16, 1024);
    const unsigned long long b = tessel_wgmma_desc(k_tile + chunk * L::BK * 128 + within, 16, 1024);
    tessel_wgmma<C::F16, 0, 0>(s, a, b, kk > 0 ? 1 : 0);
  }
  tessel_wgmma_commit();
}

// O += P V over the V tile at `v_tile`: BK / 16 steps of k16 (16 keys, 2048 bytes of
// MN-major rows each); V's 64-column chunks lie BK rows of 128 bytes apart.
template <class C>
__device__ __forceinline__ void tessel_attention_sm90_values(
    float (&o)[C::D / 2], const unsigned (&p)[tessel_attention_sm90_layout<C>::BK / 16][4],
    unsigned v_tile) {
  using L = tessel_attention_sm90_layout<C>;
  tessel_wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < L::BK / 16; ++kk) {
    const unsigned long long b = tessel_wgmma_desc(v_tile + kk * 2048, L::BK * 128, 1024);
    tessel_wgmma_rs<C::F16, 1>(o, p[kk], b, 1);
  }
  tessel_wgmma_commit();
}

// A split over the keys (C::SPLITS > 1, where the query tiles alone leave most SMs idle):
// each block of a query tile visits its share of the key tiles and leaves, for each of its
// rows, the unnormalized output, the running max and the sum in the workspace `ws`:
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
// in the fragment layout of tessel_attention_sm80, through `epilogue(o, row0)`.
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
  epilogue(o, row0);
}

// `key_range`, `score(s, row0, key0)` and `epilogue(o, row0)` as tessel_attention_sm80 takes
// them; `ws` holds the shares where C::SPLITS > 1 (blockIdx.x: split fastest, then query
// tile, then entry).
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
  unsigned long long* bars = (unsigned long long*)(sv + L::STAGES * L::kTileBytes);
  unsigned long long *q_full = bars, *k_full = bars + 1, *k_empty = k_full + L::STAGES;
  unsigned long long *v_full = k_empty + L::STAGES, *v_empty = v_full + L::STAGES;
  // The last query tiles first: under a causal mask they visit the most keys, and the
  // shortest run last.
  const int split = blockIdx.x % C::SPLITS, tile = blockIdx.x / C::SPLITS;
  const int batch = tile / L::kQueryTiles;
  const int q0 = (L::kQueryTiles - 1 - tile % L::kQueryTiles) * L::BQ;
  int kt_begin, kt_end;
  tessel_attention_key_tiles<L::BK, C::SK>(key_range, q0, min(q0 + L::BQ, C::SQ) - 1, kt_begin,
                                           kt_end);
  if constexpr (C::SPLITS > 1) {  // this block's share of the key tiles
    const int per = (kt_end - kt_begin + C::SPLITS - 1) / C::SPLITS;
    kt_begin = min(kt_end, kt_begin + split * per);
    kt_end = min(kt_end, kt_begin + per);
  }
  if (threadIdx.x == 0) {
    tessel_mbar_init(q_full, 1);
    for (int s = 0; s < L::STAGES; ++s) {
      tessel_mbar_init(&k_full[s], 1);  // the producer's arrive plus the TMA bytes
      tessel_mbar_init(&v_full[s], 1);
      tessel_mbar_init(&k_empty[s], 2);  // one arrive per consumer warpgroup
      tessel_mbar_init(&v_empty[s], 2);
    }
    tessel_fence_mbar_init();
  }
  __syncthreads();
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    tessel_setmaxnreg_dec<L::kProducerRegisters>();
    if (threadIdx.x == 0) {
      tessel_attention_sm90_producer<C>(sq, sk, sv, bars, q_map, k_map, v_map, batch, q0, kt_begin,
                                        kt_end);
    }
    return;
  }
  tessel_setmaxnreg_inc<L::kConsumerRegisters>();
  const int c = warpgroup - 1;
  const bool signals = threadIdx.x % 128 == 0;
  const int row0 = q0 + 64 * c + 16 * (threadIdx.x / 32 % 4);  // the warp's first row
  const unsigned q_rows = tessel_smem(sq) + c * 64 * 128;
  float s[L::BK / 2], o[C::D / 2] = {};
  unsigned p[L::BK / 16][4];
  float(&sf)[L::BK / 8][4] = *reinterpret_cast<float(*)[L::BK / 8][4]>(s);
  float(&of)[C::D / 8][4] = *reinterpret_cast<float(*)[C::D / 8][4]>(o);
  float m[2] = {TESSEL_NEG_INF, TESSEL_NEG_INF}, l[2] = {0.0f, 0.0f};
  // f and the online softmax on tile kt's scores (exp in place); the factors that rescale O.
  auto softmax = [&](int kt, float(&rescale)[2]) {
    score(sf, row0, kt * L::BK);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      rescale[h] = tessel_attention_online_softmax(sf, h, m[h], l[h], kt * L::BK, C::SK);
    }
  };
  auto pack = [&] {
#pragma unroll
    for (int kk = 0; kk < L::BK / 16; ++kk) tessel_attention_pack_p<C::F16>(sf, kk, p[kk]);
  };
  // Ping-pong: the consumers take turns to issue their wgmmas (named barriers 1 and 2), so
  // that one's softmax runs while the other's products occupy the tensor cores. Consumer 1
  // lets consumer 0 go first and passes no turn after its last issue (none is awaited).
  const int tiles = kt_end - kt_begin;  // none: every row is -inf only, and gives NaN
  auto take_turn = [&] { tessel_named_barrier(1 + c, 256); };
  auto pass_turn = [&](bool last) {
    if (!(last && c == 1)) tessel_named_barrier_arrive(2 - c, 256);
  };
  if (c == 1 && tiles > 0) tessel_named_barrier_arrive(1, 256);
  // Tile 0 apart, so that the loop's body is straight-line code: ptxas tracks which wgmmas
  // are in flight only along it (a branch on kt > 0 would make it serialize them).
  float rescale[2];
  tessel_mbar_wait(q_full, 0);
  if (tiles > 0) {
    tessel_mbar_wait(&k_full[0], 0);
    take_turn();
    tessel_attention_sm90_scores<C>(s, q_rows, tessel_smem(sk));
    pass_turn(false);
    tessel_wgmma_wait<0>();
    tessel_fence_registers(s);
    if (signals) tessel_mbar_arrive(&k_empty[0]);
    softmax(kt_begin, rescale);
    pack();
  }
  for (int i = 1; i < tiles; ++i) {
    const int stage = i % L::STAGES, last = (i - 1) % L::STAGES;
    tessel_mbar_wait(&k_full[stage], (i / L::STAGES) & 1);
    tessel_mbar_wait(&v_full[last], ((i - 1) / L::STAGES) & 1);
    take_turn();
    tessel_attention_sm90_scores<C>(s, q_rows, tessel_smem(sk + stage * L::kTileBytes));
    // The previous tile's P V, in flight with this tile's Q K^T and softmax.
    tessel_attention_sm90_values<C>(o, p, tessel_smem(sv + last * L::kTileBytes));
    pass_turn(false);
    tessel_wgmma_wait<1>();
    tessel_fence_registers(s);
    if (signals) tessel_mbar_arrive(&k_empty[stage]);
    softmax(kt_begin + i, rescale);
    tessel_wgmma_wait<0>();  // P V has retired: O and P are the registers' own again
    tessel_fence_registers(o);
    tessel_fence_registers(p);
    if (signals) tessel_mbar_arrive(&v_empty[last]);
#pragma unroll
    for (int j = 0; j < C::D / 8; ++j) {
      of[j][0] *= rescale[0], of[j][1] *= rescale[0];
      of[j][2] *= rescale[1], of[j][3] *= rescale[1];
    }
    pack();
  }
  if (tiles > 0) {
    const int stage = (tiles - 1) % L::STAGES;
    tessel_mbar_wait(&v_full[stage], ((tiles - 1) / L::STAGES) & 1);
    take_turn();
    tessel_attention_sm90_values<C>(o, p, tessel_smem(sv + stage * L::kTileBytes));
    pass_turn(true);
    tessel_wgmma_wait<0>();
    tessel_fence_registers(o);
    tessel_fence_registers(p);
    if (signals) tessel_mbar_arrive(&v_empty[stage]);
  }
  if constexpr (C::SPLITS > 1) {
    tessel_attention_store_partial<C>(ws, of, m, l, batch, split, row0);
    return;
  }
  tessel_attention_normalize(of, l);
  epilogue(of, row0);
}
