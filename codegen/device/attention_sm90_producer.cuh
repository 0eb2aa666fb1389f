// tessel device library: attention on Hopper (sm_90a), its layout and producer, handed to
// NVRTC as the named header "tessel/attention_sm90_producer.cuh" (attention_sm90.cuh says
// how the kernel works and what C provides): the tiles and the shared memory they take, the
// mbarriers, the persistent walk's work tiles and their order, and the producer thread that
// loads each work tile's Q and its K and V tiles by TMA.
#pragma once
#include "tessel/attention_sm80.cuh"  // tessel_attention_key_tiles

struct tessel_attention_coords {
  int c2, c3, c4;  // dims 2 .. 4 of a 5-D map
};

template <class C>
struct tessel_attention_sm90_layout {
  // BQ: 128 or 192 queries; BK: 80 (D = 256), 128 or 176 keys
  static constexpr int BQ = C::BQ, BK = C::BK;
  // Consumer warpgroups launched, 64 query rows each (a producer warpgroup besides).
  static constexpr int kConsumerGroups = BQ / 64;
  static constexpr int STAGES = C::D == 64 ? 4 : 2;
  static constexpr int kChunks = C::D / 64;         // 128-byte column chunks (TMA boxes) of a row
  static constexpr int kQBytes = BQ * C::D * 2;     // Q's tile, chunk after chunk
  static constexpr int kTileBytes = BK * C::D * 2;  // one K or V tile
  static constexpr int kBarriers = 2 + 4 * STAGES;  // Q full, Q empty; K, V full and empty
  // 1024 bytes of slack align the tiles to the swizzle's 1024-byte atom; after the barriers,
  // 16 bytes hold the number of the work tile whose Q the producer loads (C::TICKETS), or the
  // consumers' verdicts of a split (tessel_attention_finish_split).
  static constexpr int kSmemBytes = 1024 + kQBytes + 2 * STAGES * kTileBytes + kBarriers * 8 + 16;
  static constexpr int kQueryTiles = (C::SQ + BQ - 1) / BQ;
  static constexpr int kWork = kQueryTiles * C::BATCH * C::SPLITS;  // the persistent walk's
  // Entries in groups of at most C::GROUP, their sizes as even as can be (kGroups: kLarge
  // entries, then the rest of kSmall).
  static constexpr int kGroups = (C::BATCH + C::GROUP - 1) / C::GROUP;
  static constexpr int kSmall = C::BATCH / kGroups, kLarge = kSmall + 1;
  static constexpr int kLargeGroups = C::BATCH % kGroups;
  static_assert(!C::TICKETS || C::SPLITS == 1, "tickets walk whole query tiles");
  // setmaxnreg: 65536 registers from launch (__launch_bounds__(128 (1 + kConsumerGroups), 1));
  // the producer gives back what the consumers take: 40 and 232 with two consumers, 32 and 160
  // with three.
  static constexpr int kProducerRegisters = kConsumerGroups == 2 ? 40 : 32;
  static constexpr int kConsumerRegisters = kConsumerGroups == 2 ? 232 : 160;
  static_assert(128 * kProducerRegisters + 128 * kConsumerGroups * kConsumerRegisters <= 65536,
                "setmaxnreg asks for too many registers");
  static_assert(C::D == 64 || C::D == 128 || C::D == 256, "head dimension 64, 128 or 256");
  // At D = 256 O takes 128 registers a consumer thread: key tiles of 80 (S 40, P 20).
  static_assert(C::D == 256 ? BK == 80 && BQ == 128 : BK == 128 || BK == 176,
                "key tiles of 128 or 176, or 80 at D = 256");
  static_assert(BQ == 128 || (BQ == 192 && BK == 128), "192 queries: 160 registers hold 128 keys");
  // Only the last key tile of the keys can end past S_K (the one that holds key S_K - 1), and
  // then it is the last a work tile visits: the others skip the softmax's key test.
  static constexpr bool kRagged = C::SK % BK != 0;
  // Consumer warpgroups with query rows: one where all rows fit its 64 (decoding: a few
  // queries a head, folded), so that the other's products take no turns on the tensor cores.
  static constexpr int kConsumers = C::SQ <= 64 ? 1 : kConsumerGroups;
  // Where blocks take tickets, the work tile's number passes through the slot between two
  // named barriers (after the turns' 1 .. 3 and the no-key meetings' 4 .. 6): written, then
  // ready for the consumers; read, then free for the producer's next.
  static constexpr int kNumberReady = 7, kNumberRead = 8;
  static constexpr int kNumberThreads = 32 + 128 * kConsumers;  // the producer warp, consumers
  static_assert(C::SMEM >= kSmemBytes, "the host reserves too little shared memory");
};

struct tessel_attention_sm90_barriers {
  unsigned long long *q_full, *q_empty, *k_full, *k_empty, *v_full, *v_empty;
};

template <class C>
__device__ __forceinline__ tessel_attention_sm90_barriers
tessel_attention_sm90_barriers_at(unsigned long long* b) {
  constexpr int S = tessel_attention_sm90_layout<C>::STAGES;
  return {b, b + 1, b + 2, b + 2 + S, b + 2 + 2 * S, b + 2 + 3 * S};
}

// After the barriers: the number of the work tile whose Q the producer loads, where blocks
// take tickets (derived from a pointer the consumers hold anyway: a register fewer for them).
template <class C>
__device__ __forceinline__ volatile int* tessel_attention_sm90_slot(
    const tessel_attention_sm90_barriers& bar) {
  return (volatile int*)(bar.q_full + tessel_attention_sm90_layout<C>::kBarriers);
}

// Work tile t of the persistent walk: a query tile of a batch entry and, where C::SPLITS > 1,
// a share of its key tiles (split fastest). Query tiles go last first, so that under a causal
// mask the tiles that visit the most keys start first and the short ones fill the end. The
// entries go in groups, each group's tiles by query tile, then entry: with tickets (a block
// takes the next work tile when it is done with one) the longest tiles of several entries run
// first, and the keys and values in use at once are a group's (C::GROUP: what L2 holds).
struct tessel_attention_work {
  int batch, split, q0, kt_begin, kt_end;
};

template <class C, class KeyRange>
__device__ __forceinline__ tessel_attention_work tessel_attention_sm90_work(int t,
                                                                            KeyRange& key_range) {
  using L = tessel_attention_sm90_layout<C>;
  constexpr int Q = L::kQueryTiles, kLargeTiles = L::kLargeGroups * L::kLarge * Q;
  tessel_attention_work w;
  w.split = t % C::SPLITS;
  int tile = t / C::SPLITS, rank;
  if (tile < kLargeTiles) {
    w.batch = tile / (L::kLarge * Q) * L::kLarge + tile % L::kLarge;
    rank = tile % (L::kLarge * Q) / L::kLarge;
  } else {
    tile -= kLargeTiles;
    w.batch = L::kLargeGroups * L::kLarge + tile / (L::kSmall * Q) * L::kSmall + tile % L::kSmall;
    rank = tile % (L::kSmall * Q) / L::kSmall;
  }
  w.q0 = (Q - 1 - rank) * L::BQ;
  tessel_attention_key_tiles<L::BK, C::SK>(key_range, w.batch, w.q0, min(w.q0 + L::BQ, C::SQ) - 1,
                                           w.kt_begin, w.kt_end);
  if constexpr (C::SPLITS > 1) {  // this block's share of the key tiles
    const int per = (w.kt_end - w.kt_begin + C::SPLITS - 1) / C::SPLITS;
    w.kt_begin = min(w.kt_end, w.kt_begin + w.split * per);
    w.kt_end = min(w.kt_end, w.kt_begin + per);
  }
  return w;
}

// Key tile kt of K or V into a ring stage, once the consumers have freed it (a fresh barrier
// passes parity 1): its 64-column chunks by TMA.
template <class C>
__device__ __forceinline__ void tessel_attention_sm90_load_tile(
    unsigned char* stage, const tessel_tensor_map& map, unsigned long long* full,
    unsigned long long* empty, unsigned phase, int kt, tessel_attention_coords b) {
  using L = tessel_attention_sm90_layout<C>;
  tessel_mbar_wait(empty, phase ^ 1);
  tessel_mbar_arrive_expect_tx(full, L::kTileBytes);
#pragma unroll
  for (int j = 0; j < L::kChunks; ++j) {
    tessel_tma_load_5d(stage + j * L::BK * 128, &map, full, 64 * j, kt * L::BK, b.c2, b.c3, b.c4);
  }
}

// The producer walks the block's work tiles: for each, once the consumers are done with the
// last one's Q (Q empty), its Q, then its K and V tiles through the ring, whose stages and
// phases run on across work tiles (n: the key tiles loaded so far). A block's first work tile
// is blockIdx.x; the next is gridDim.x on from it, which the consumers count too, or with
// C::TICKETS the next ticket's (counted over the launch's tag in the workspace's first word,
// tessel_tagged_count), which they read from the slot; past the last work tile it ends their walk.
// The slot passes between two named barriers (number ready, number read), which compute-sanitizer's
// racecheck follows (it does not follow mbarriers: a plain shared store ordered by them alone was
// reported as a race). Lanes 1-31 of the producer's warp have exited, so its bar.sync and
// bar.arrive (aligned) see no divergence (synccheck: 0 errors).
template <class C, class KeyRange>
__device__ __forceinline__ void tessel_attention_sm90_producer(
    unsigned char* sq, unsigned char* sk, unsigned char* sv, tessel_attention_sm90_barriers bar,
    float* ws, const tessel_tensor_map& q_map, const tessel_tensor_map& k_map,
    const tessel_tensor_map& v_map, KeyRange& key_range) {
  using L = tessel_attention_sm90_layout<C>;
  int n = 0;
  for (int t = blockIdx.x, round = 0;; ++round) {
    tessel_mbar_wait(bar.q_empty, (round & 1) ^ 1);  // a fresh barrier passes parity 1
    if constexpr (C::TICKETS) {
      // Long since read: the consumers read a number as they start its work tile.
      if (round > 0) tessel_named_barrier(L::kNumberRead, L::kNumberThreads);
      *tessel_attention_sm90_slot<C>(bar) = t;
      tessel_named_barrier_arrive(L::kNumberReady, L::kNumberThreads);
    }
    if (t >= L::kWork) {
      // The last number read: no barrier is left part-way when the block exits.
      if constexpr (C::TICKETS) tessel_named_barrier(L::kNumberRead, L::kNumberThreads);
      return;
    }
    const tessel_attention_work w = tessel_attention_sm90_work<C>(t, key_range);
    const tessel_attention_coords qb = C::q_coords(w.batch), kb = C::k_coords(w.batch),
                                  vb = C::v_coords(w.batch);
    tessel_mbar_arrive_expect_tx(bar.q_full, L::kQBytes);
#pragma unroll
    for (int j = 0; j < L::kChunks; ++j) {
      tessel_tma_load_5d(sq + j * L::BQ * 128, &q_map, bar.q_full, 64 * j, w.q0, qb.c2, qb.c3,
                         qb.c4);
    }
    for (int kt = w.kt_begin; kt < w.kt_end; ++kt, ++n) {
      const int stage = n % L::STAGES;
      const unsigned phase = (n / L::STAGES) & 1;
      // K first, so that Q K^T can start before V has landed.
      tessel_attention_sm90_load_tile<C>(sk + stage * L::kTileBytes, k_map, &bar.k_full[stage],
                                         &bar.k_empty[stage], phase, kt, kb);
      tessel_attention_sm90_load_tile<C>(sv + stage * L::kTileBytes, v_map, &bar.v_full[stage],
                                         &bar.v_empty[stage], phase, kt, vb);
    }
    // The next ticket while the consumers still work on this tile's last keys (Q empty comes
    // after their last Q K^T): its latency stays off the walk.
    // Tickets past the work tiles: one a block, kWork in all (kWork - gridDim.x of work).
    t = (int)gridDim.x +
        (C::TICKETS ? (int)tessel_tagged_count((unsigned long long*)ws, L::kWork) : t);
  }
}
