// tessel device library: attention on mma.sync (sm_80 and later), handed to NVRTC as the named
// header "tessel/attention_sm80.cuh". O = softmax(f(Q K^T)) V for one (batch, query tile) per
// block, never writing the scores: the FlashAttention-2 forward loop.
//
// A block of 4 warps holds 64 query rows (16 a warp) and walks the keys in tiles of 64:
// - K and V tiles arrive by cp.async into two shared buffers (the next tile loads while the
//   current one is used), rows padded by 16 bytes so that ldmatrix reads no bank twice;
// - S = Q K^T (m16n8k16, Q's fragments held in registers for the whole loop), then the
//   generated `score` applies f (scale, bias, masks) to S in registers; keys past S_K are -inf;
// - the online softmax: each row's running max m and sum l; when m grows, l and the output
//   accumulators are rescaled by exp(m_old - m_new); P = exp(S - m) in registers becomes the
//   A operand of P V directly (two adjacent n8 blocks of S are one k16 fragment);
// - at the end O / l goes through the generated `epilogue`.
// A row whose scores are all -inf has l = 0 and gives NaN, as softmax does on the CPU.
//
// C provides: D (the head dimension computed with: 64, 128 or 256), COLS (the operands' columns,
// at most D: the rest read as zeros, so that their products add nothing), SQ, SK (query and
// key counts), BATCH, SMEM (the shared bytes the host reserves), F16 (f16 operands, else
// bf16), `typedef ... T` (the 16-bit storage type), `static __device__ long long
// q_offset(int)`, `k_offset(int)`, `v_offset(int)`: the elements before a batch entry's first
// row of each operand (broadcast heads map many entries to one), and Q_ROW, K_ROW, V_ROW: the
// elements from one row to the next. Q is [SQ, COLS], K and V [SK, COLS], each row's columns
// contiguous.
//
// Fragments (g = lane / 4, t = lane % 4): thread element s[j][e] of a warp's 16 x 64 scores is
// row g + 8 (e / 2), key 8 j + 2 t + e % 2; o[j][e] is row g + 8 (e / 2), column 8 j + 2 t +
// e % 2 of its 16 x D output.
#pragma once
#include "tessel/ptx.cuh"

#define TESSEL_NEG_INF (-__int_as_float(0x7f800000))

template <class C>
struct tessel_attention_sm80_layout {
  static constexpr int BQ = 64, BK = 64, kPitch = C::D + 8;  // rows padded by 16 bytes
  static constexpr int kTileElems = BK * kPitch;             // one K or V tile
  // At D = 256 the output alone takes 128 registers a thread: Q's fragments are read from
  // shared memory at each step instead of held, and K and V have one buffer each (Q, K and V
  // fill 99 KB, what sm_86 allows a block), loaded after the tile's products.
  static constexpr bool kHoldQ = C::D <= 128;
  static constexpr int kBuffers = C::D <= 128 ? 2 : 1;
  static constexpr int kSmemBytes = (BQ * kPitch + 2 * kBuffers * kTileElems) * 2;  // Q, K, V
  static_assert(C::D == 64 || C::D == 128 || C::D == 256, "head dimension 64, 128 or 256");
  static_assert(C::SMEM >= kSmemBytes, "the host reserves too little shared memory");
};

// rows x D of a [total, COLS] matrix (rows `step` elements apart) from row `row0` into shared
// rows of kPitch, by the block's 128 threads, 16 bytes a copy; rows past `total` and columns
// past COLS are zeros.
template <class C, int ROWS>
__device__ __forceinline__ void tessel_attention_sm80_load(typename C::T* dst,
                                                           const typename C::T* src, int row0,
                                                           int total, long long step) {
  using L = tessel_attention_sm80_layout<C>;
  constexpr int kChunksPerRow = C::D / 8;
#pragma unroll
  for (int i = threadIdx.x; i < ROWS * kChunksPerRow; i += 128) {
    const int r = i / kChunksPerRow, c = (i % kChunksPerRow) * 8;
    const bool inside = row0 + r < total && c < C::COLS;
    tessel_copy_16_async(dst + r * L::kPitch + c, inside ? src + (row0 + r) * step + c : src,
                         inside);
  }
}

__device__ __forceinline__ float tessel_quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float tessel_quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// The online softmax over one row half h (rows g and g + 8 of the warp's 16: h = 0, 1) of its
// score fragments s[NB][4], NB blocks of 8 keys from key0: keys at or past `sk` become -inf,
// the row's running max m and sum l advance, and s becomes exp(s - m) in place. Returns
// exp(m_old - m_new), the factor that rescales the output accumulated so far. `guard` false
// (a constant where inlined) leaves out the test against `sk`, for tiles that end before it.
template <int NB>
__device__ __forceinline__ float tessel_attention_online_softmax(float (&s)[NB][4], int h, float& m,
                                                                 float& l, int key0, int sk,
                                                                 bool guard = true) {
  constexpr float kLog2e = 1.4426950408889634f;
  const int lane = threadIdx.x % 32;
  float top = TESSEL_NEG_INF;
#pragma unroll
  for (int j = 0; j < NB; ++j) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      if (guard && key0 + 8 * j + 2 * (lane % 4) + e >= sk) s[j][2 * h + e] = TESSEL_NEG_INF;
      top = fmaxf(top, s[j][2 * h + e]);
    }
  }
  const float m_new = fmaxf(m, tessel_quad_max(top));
  // exp(s - m) as 2^(s log2(e) - m log2(e)), one FFMA: every term carries the rounding of
  // m log2(e), the same factor 2^e for the row, which the normalization cancels; (s - m)
  // log2(e), exact, costs an instruction more (6% of the kernel at D = 128). Past |m| = 2^20
  // that factor grows towards overflow (2^128 at |m| ~ 1.5e9), but there bf16 scores lie
  // at least 2^12 apart and exp(s - m) is 1 at the max and 0 below it: such rows scale by a
  // log2(e) of 16 significant bits, divided by 16, whose product with a bf16 (8 bits) is
  // exact, so that the max's exponent is exactly 0 and the others are below -369 (as is the
  // rescale from any smaller max). f16 stays below 2^20.
  const float scale = fabsf(m_new) < 1048576.0f ? kLog2e : 0.09016799926757812f;
  const float shift = m_new == TESSEL_NEG_INF ? 0.0f : m_new * scale;  // all -inf so far
  const float rescale = tessel_exp2_ftz(m * scale - shift);
  m = m_new;
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < NB; ++j) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      s[j][2 * h + e] = tessel_exp2_ftz(fmaf(s[j][2 * h + e], scale, -shift));
      sum += s[j][2 * h + e];
    }
  }
  l = l * rescale + sum;
  return rescale;
}

// Divides each row's output by its sum (the quad's four partial sums): a row of -inf only
// has the sum 0 and gives NaN, as softmax does.
template <int NJ>
__device__ __forceinline__ void tessel_attention_normalize(float (&o)[NJ][4], const float (&l)[2]) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const float inv = 1.0f / tessel_quad_sum(l[h]);
#pragma unroll
    for (int j = 0; j < NJ; ++j) o[j][2 * h] *= inv, o[j][2 * h + 1] *= inv;
  }
}

// P's k16 fragment kk (keys 16 kk..) as the A operand of P V: two adjacent blocks of 8 keys.
template <bool F16, int NB>
__device__ __forceinline__ void tessel_attention_pack_p(const float (&s)[NB][4], int kk,
                                                        unsigned (&p)[4]) {
  auto pack = [](float lo, float hi) {
    return F16 ? tessel_pack_f16(lo, hi) : tessel_pack_bf16(lo, hi);
  };
  p[0] = pack(s[2 * kk][0], s[2 * kk][1]);
  p[1] = pack(s[2 * kk][2], s[2 * kk][3]);
  p[2] = pack(s[2 * kk + 1][0], s[2 * kk + 1][1]);
  p[3] = pack(s[2 * kk + 1][2], s[2 * kk + 1][3]);
}

// The key tiles [begin, end) of BK keys that the rows row_first..row_last visit: the generated
// `key_range(batch, row_first, row_last, key_begin, key_end)` narrows [0, SK) to the keys that may
// be unmasked for some of those rows (codegen/attention_band.h: causal and window masks); tiles
// past them hold only -inf.
template <int BK, int SK, class KeyRange>
__device__ __forceinline__ void tessel_attention_key_tiles(KeyRange& key_range, int batch,
                                                           int row_first, int row_last, int& begin,
                                                           int& end) {
  int key_begin = 0, key_end = SK;
  key_range(batch, row_first, row_last, key_begin, key_end);
  begin = key_begin / BK;
  end = key_end > key_begin ? (key_end + BK - 1) / BK : begin;
}

// `key_range` as tessel_attention_key_tiles takes it (rows of -inf only give NaN, tiles visited
// or not); `score(batch, s, row0, key0)` applies f to a warp's scores (batch entry `batch`,
// rows row0.., keys key0..); `epilogue(batch, o, row0)` takes its normalized outputs (rows
// row0..), both in the fragment layout above.
template <class C, class KeyRange, class Score, class Epilogue>
__device__ __forceinline__ void tessel_attention_sm80(const typename C::T* q,
                                                      const typename C::T* k,
                                                      const typename C::T* v, KeyRange key_range,
                                                      Score score, Epilogue epilogue) {
  using L = tessel_attention_sm80_layout<C>;
  using T = typename C::T;
  extern __shared__ __align__(16) unsigned char tessel_attention_raw[];
  T* sq = reinterpret_cast<T*>(tessel_attention_raw);
  T* sk = sq + L::BQ * L::kPitch;  // the K tiles, then the V tiles
  T* sv = sk + L::kBuffers * L::kTileElems;
  const int batch = blockIdx.y, q0 = blockIdx.x * L::BQ;
  q += C::q_offset(batch);
  k += C::k_offset(batch);
  v += C::v_offset(batch);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int kt_begin, kt_end;
  tessel_attention_key_tiles<L::BK, C::SK>(key_range, batch, q0, min(q0 + L::BQ, C::SQ) - 1,
                                           kt_begin, kt_end);
  tessel_attention_sm80_load<C, L::BQ>(sq, q, q0, C::SQ, C::Q_ROW);
  if (kt_begin < kt_end) {
    const int first = kt_begin % L::kBuffers;
    tessel_attention_sm80_load<C, L::BK>(sk + first * L::kTileElems, k, kt_begin * L::BK, C::SK,
                                         C::K_ROW);
    tessel_attention_sm80_load<C, L::BK>(sv + first * L::kTileElems, v, kt_begin * L::BK, C::SK,
                                         C::V_ROW);
  }
  tessel_cp_async_commit();
  tessel_cp_async_wait<0>();
  __syncthreads();
  // Q's fragments for the warp's 16 rows: D / 16 k-steps, held (kHoldQ) or read at each.
  const int q_row = warp * 16 + lane % 8 + 8 * ((lane / 8) % 2);
  unsigned qf[L::kHoldQ ? C::D / 16 : 1][4];
  if constexpr (L::kHoldQ) {
#pragma unroll
    for (int kk = 0; kk < C::D / 16; ++kk) {
      tessel_ldmatrix_x4(qf[kk], sq + q_row * L::kPitch + kk * 16 + 8 * (lane / 16));
    }
  }
  float o[C::D / 8][4] = {};
  float m[2] = {TESSEL_NEG_INF, TESSEL_NEG_INF}, l[2] = {0.0f, 0.0f};
  // The next tiles (kt) into their buffer: the other one of two, while this one is used.
  auto load_tiles = [&](int kt) {
    const int buffer = kt % L::kBuffers;
    tessel_attention_sm80_load<C, L::BK>(sk + buffer * L::kTileElems, k, kt * L::BK, C::SK,
                                         C::K_ROW);
    tessel_attention_sm80_load<C, L::BK>(sv + buffer * L::kTileElems, v, kt * L::BK, C::SK,
                                         C::V_ROW);
  };
  for (int kt = kt_begin; kt < kt_end; ++kt) {
    const T* kb = sk + (kt % L::kBuffers) * L::kTileElems;
    const T* vb = sv + (kt % L::kBuffers) * L::kTileElems;
    if (L::kBuffers == 2 && kt + 1 < kt_end) load_tiles(kt + 1);
    tessel_cp_async_commit();
    // S = Q K^T: 8 blocks of 8 keys; an ldmatrix x4 gives two blocks' B fragments.
    float s[L::BK / 8][4] = {};
#pragma unroll
    for (int kk = 0; kk < C::D / 16; ++kk) {
      unsigned a[4];
      if constexpr (L::kHoldQ) {
#pragma unroll
        for (int i = 0; i < 4; ++i) a[i] = qf[kk][i];
      } else {
        tessel_ldmatrix_x4(a, sq + q_row * L::kPitch + kk * 16 + 8 * (lane / 16));
      }
#pragma unroll
      for (int j = 0; j < L::BK / 8; j += 2) {
        unsigned b[4];
        const int key = j * 8 + lane % 8 + 8 * (lane / 16), col = kk * 16 + 8 * ((lane / 8) % 2);
        tessel_ldmatrix_x4(b, kb + key * L::kPitch + col);
        const unsigned b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
        tessel_mma_16816<C::F16>(s[j], a, b0);
        tessel_mma_16816<C::F16>(s[j + 1], a, b1);
      }
    }
    const int row0 = q0 + warp * 16, key0 = kt * L::BK;
    score(batch, s, row0, key0);
    // The online softmax, rows g (h = 0) and g + 8 (h = 1) of the warp.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float rescale = tessel_attention_online_softmax(s, h, m[h], l[h], key0, C::SK);
#pragma unroll
      for (int j = 0; j < C::D / 8; ++j) o[j][2 * h] *= rescale, o[j][2 * h + 1] *= rescale;
    }
    // O += P V: P's k16 fragments from pairs of score blocks; V's by ldmatrix.trans.
#pragma unroll
    for (int kk = 0; kk < L::BK / 16; ++kk) {
      unsigned p[4];
      tessel_attention_pack_p<C::F16>(s, kk, p);
#pragma unroll
      for (int j = 0; j < C::D / 8; j += 2) {
        unsigned b[4];
        const int key = kk * 16 + lane % 8 + 8 * ((lane / 8) % 2), col = j * 8 + 8 * (lane / 16);
        tessel_ldmatrix_x4_trans(b, vb + key * L::kPitch + col);
        const unsigned b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
        tessel_mma_16816<C::F16>(o[j], p, b0);
        tessel_mma_16816<C::F16>(o[j + 1], p, b1);
      }
    }
    if (L::kBuffers == 1 && kt + 1 < kt_end) {
      __syncthreads();  // every warp is done with this tile's K and V
      load_tiles(kt + 1);
      tessel_cp_async_commit();
    }
    tessel_cp_async_wait<0>();
    __syncthreads();  // the next tiles have landed; this tile's buffers are free
  }
  tessel_attention_normalize(o, l);
  epilogue(batch, o, q0 + warp * 16);
}
