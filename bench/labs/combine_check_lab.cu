// The split attention's combine (tessel_attention_combine, codegen/device/attention_split.cuh)
// alone, for a change to its merge: BATCH x SQ rows of SPLITS shares of D values, made up on the
// host in seven kinds of rows (maxima within 8, within 150 so that weights underflow, mostly -inf,
// all -inf, -inf then finite, rising so that each round rescales, -inf then finite after a first
// share of NaN scores), about a fifth of the other shares -inf; the output against a double
// reference (relative to the row's largest value; rows of -inf only, or with a NaN share, must be
// NaN), the same bits on a second run, and the time of 200 launches with the shares in L2. For each
// shape of kShapes, in blocks of COMBINE_ROWS rows as codegen/attention_schedule.cc chooses them;
// built by combine_check_lab.sh against a folder of the headers (-I), the committed ones or a
// changed copy.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "lab_timing.cuh"

// The generated sources' prelude functions the headers call (codegen/prelude.cc).
__device__ __forceinline__ float tessel_exp2_ftz(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ unsigned tessel_pack_bf16(float lo, float hi) {
  unsigned r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
__device__ __forceinline__ unsigned tessel_pack_f16(float lo, float hi) {
  unsigned r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
#include "tessel/attention_sm80.cuh"
#include "tessel/attention_split.cuh"

// Rows a combine block, as ChooseSchedule picks them: each warp one part of 8 shares or more.
constexpr int combine_rows(int splits) {
  const int parts = (splits + 7) / 8 < 16 ? (splits + 7) / 8 : 16;
  int floor = 1;
  while (2 * floor <= parts) floor *= 2;
  return 16 / floor;
}

template <int kD, int kSplits, int kRows, int kBatch>
struct config {
  static constexpr int D = kD, SPLITS = kSplits, SQ = kRows, BATCH = kBatch;
  static constexpr int COMBINE_ROWS = combine_rows(kSplits);
};

template <class C>
__global__ void __launch_bounds__(512) combine(const float* ws, float* out) {
  const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
  tessel_attention_combine<C>(ws, [&](int batch, const float(&o)[C::D / 8][4], int row0, int rows) {
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + g + 8 * h;
      if (g + 8 * h >= rows || row >= C::SQ) continue;
      for (int j = 0; j < C::D / 8; ++j) {
        float* p = out + ((long long)batch * C::SQ + row) * C::D + 8 * j + 2 * t;
        p[0] = o[j][2 * h], p[1] = o[j][2 * h + 1];
      }
    }
  });
}

// Checks and times the combine of shape C; false where it is wrong or differs on a rerun.
template <class C>
bool check() {
  constexpr int D = C::D, S = C::SPLITS, Q = C::SQ, B = C::BATCH;
  const long long shares = (long long)B * S * Q;  // rows of shares
  std::vector<float> ws(shares * (D + 2) + 64, 0.0f);
  float* ml = ws.data() + shares * D;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1, 1), sums(1, 64);
  for (int b = 0; b < B; ++b) {
    for (int r = 0; r < Q; ++r) {
      const int kind = (b * Q + r) % 7;
      for (int s = 0; s < S; ++s) {
        float m = 0;
        switch (kind) {
          case 0:
            m = 8 * u(gen);
            break;
          case 1:
            m = 150 * u(gen);
            break;
          case 2:
            m = gen() % 4 == 0 ? 10 * u(gen) : -INFINITY;
            break;
          case 3:
            m = -INFINITY;
            break;
          case 4:
          case 6:  // the same, share 0's scores all NaN (below)
            m = s < S * 3 / 4 ? -INFINITY : 5 * u(gen);
            break;
          default:
            m = 0.5f * s + u(gen);
        }
        if (kind < 3 || kind == 5) m = gen() % 5 == 0 ? -INFINITY : m;
        const long long p = ((long long)b * S + s) * Q + r;
        // A share whose scores were all NaN: the online max skips them (m -inf), its sum and
        // values are NaN, and so must the row's output be.
        const bool nan = kind == 6 && s == 0;
        const float l = nan ? NAN : m == -INFINITY ? 0.0f : sums(gen);
        ml[2 * p] = m, ml[2 * p + 1] = l;
        for (int c = 0; c < D; ++c) {
          ws[p * D + c] = nan ? NAN : m == -INFINITY ? 0.0f : l * u(gen);
        }
      }
    }
  }
  float *dws, *dout;
  const size_t out_bytes = (size_t)B * Q * D * 4;
  CK(cudaMalloc(&dws, ws.size() * 4));
  CK(cudaMalloc(&dout, out_bytes));
  CK(cudaMemcpy(dws, ws.data(), ws.size() * 4, cudaMemcpyHostToDevice));
  const int grid = (Q + C::COMBINE_ROWS - 1) / C::COMBINE_ROWS * B;
  std::vector<float> first(B * Q * D), second(B * Q * D);
  combine<C><<<grid, 512>>>(dws, dout);
  CK(cudaMemcpy(first.data(), dout, out_bytes, cudaMemcpyDeviceToHost));
  CK(cudaMemset(dout, 0, out_bytes));
  combine<C><<<grid, 512>>>(dws, dout);
  CK(cudaMemcpy(second.data(), dout, out_bytes, cudaMemcpyDeviceToHost));
  const bool repeats = memcmp(first.data(), second.data(), out_bytes) == 0;
  double worst = 0;
  int wrong = 0;
  for (int b = 0; b < B; ++b) {
    for (int r = 0; r < Q; ++r) {
      const float* o = &first[((long long)b * Q + r) * D];
      double top = -INFINITY;
      for (int s = 0; s < S; ++s) top = std::fmax(top, ml[2 * (((long long)b * S + s) * Q + r)]);
      // Shares of -inf weigh 0, and 0 x NaN keeps a NaN share's NaN.
      std::vector<double> sum(D, 0.0);
      double den = 0, largest = 0;
      for (int s = 0; s < S; ++s) {
        const long long p = ((long long)b * S + s) * Q + r;
        const double w = ml[2 * p] == -INFINITY ? 0.0 : std::exp(ml[2 * p] - top);
        den += w * ml[2 * p + 1];
        for (int c = 0; c < D; ++c) sum[c] += w * ws[p * D + c];
      }
      if (top == -INFINITY || std::isnan(den)) {  // -inf only, or a NaN share: NaN, as softmax
        for (int c = 0; c < D; ++c) wrong += !std::isnan(o[c]);
        continue;
      }
      for (int c = 0; c < D; ++c) largest = std::fmax(largest, std::fabs(sum[c] / den));
      for (int c = 0; c < D; ++c) {
        const double e = std::fabs(o[c] - sum[c] / den) / largest;
        wrong += !(e <= 1e-5);
        if (!(e <= worst)) worst = e;
      }
    }
  }
  const float ms = time_it([&] { combine<C><<<grid, 512>>>(dws, dout); }, 10);
  printf("%s D %d shares %d rows %d entries %d: error %.3g, %d wrong, %s, %.2f us\n", LAB_TAG, D, S,
         Q, B, worst, wrong, repeats ? "repeats" : "DIFFERS ON A SECOND RUN", ms * 1000);
  CK(cudaFree(dws));
  CK(cudaFree(dout));
  return wrong == 0 && repeats;
}

template <int kD>
bool check_d() {  // shares 2, 9, 39, 128 for 1, 4, 32 and 100 rows of 3 entries
  bool ok = true;
  [&]<int... kS>(std::integer_sequence<int, kS...>) {
    ((ok &= check<config<kD, kS, 1, 3>>() & check<config<kD, kS, 4, 3>>() &
            check<config<kD, kS, 32, 3>>() & check<config<kD, kS, 100, 3>>()),
     ...);
  }
  (std::integer_sequence<int, 2, 9, 39, 128>{});
  return ok;
}

int main() {
  lab_once = getenv("LAB_ONCE") != nullptr;
  bool ok = check<config<128, 32, 32, 1>>();  // the multi-query decode's: 32 rows of 32 shares
  ok &= check_d<64>() & check_d<128>() & check_d<256>();
  // Parts of a row that are not a power of two (17, 100 shares), empty parts (132 shares in 16
  // parts of 9), blocks whose last has fewer rows (5, 17, 33 rows).
  ok &= check<config<128, 17, 17, 2>>() & check<config<128, 100, 33, 1>>() &
        check<config<128, 132, 5, 2>>() & check<config<256, 132, 1, 1>>();
  printf("%s\n", ok ? "all right" : "SOME WRONG");
  return ok ? 0 : 1;
}
