// Runs tessel_attention_sm80 (preprocessed copy in gen/) on the CPU emulation and compares with
// a double-precision reference.
#include "emu.h"
#include "tessel/attention_sm80.cuh"
#include <algorithm>
#include <limits>
#include <random>
#include <string>

struct Mask {  // 0: none; 1: masked iff key > row + off (causal, shifted); 2: window: key > row or key < row - w
  int mode = 0, off = 0, w = 0;
  bool operator()(int row, int key) const {
    if (mode == 1) return key > row + off;
    if (mode == 2) return key > row || key < row - w;
    return false;
  }
  std::string str() const {
    if (mode == 1) return off ? "causal" + std::string(off > 0 ? "+" : "") + std::to_string(off) : "causal";
    if (mode == 2) return "window" + std::to_string(w);
    return "none";
  }
};

template <int D_, int SQ_, int SK_, int BATCH_, int GROUP_, bool F16_>
struct Cfg {
  static constexpr int D = D_, COLS = D_, SQ = SQ_, SK = SK_, BATCH = BATCH_, GROUP = GROUP_;
  static constexpr int SMEM = 1 << 20;  // the layout's own size is allocated
  static constexpr bool F16 = F16_;
  typedef unsigned short T;
  static constexpr long long Q_ROW = D, K_ROW = D, V_ROW = D;
  static __device__ long long q_offset(int b) { return (long long)b * SQ * D; }
  static __device__ long long k_offset(int b) { return (long long)(b / GROUP) * SK * D; }
  static __device__ long long v_offset(int b) { return (long long)(b / GROUP) * SK * D; }
};

static int g_failures = 0;

template <class C>
void run(Mask mask, unsigned seed = 1) {
  using L = tessel_attention_sm80_layout<C>;
  constexpr int D = C::D, SQ = C::SQ, SK = C::SK, B = C::BATCH;
  constexpr int NKV = (B + C::GROUP - 1) / C::GROUP;
  const float scale = 1.0f / std::sqrt((float)D);
  auto to_f = [](unsigned short h) { return C::F16 ? tessel_f16_to_float(h) : tessel_bf16_to_float(h); };
  auto to_h = [](float f) { return C::F16 ? tessel_float_to_f16(f) : tessel_float_to_bf16(f); };
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  // exact-size heap arrays: ASan sees any read past them
  std::vector<unsigned short> q((size_t)B * SQ * D), k((size_t)NKV * SK * D), v((size_t)NKV * SK * D);
  for (auto* x : {&q, &k, &v})
    for (auto& e : *x) e = to_h(dist(rng));
  std::vector<float> out((size_t)B * SQ * D, 12345.0f);
  std::vector<unsigned short> out_h((size_t)B * SQ * D, 0);
  std::vector<std::atomic<int>> writes((size_t)B * SQ * D);
  for (auto& w : writes) w = 0;
  std::atomic<long long> bad_writes{0};
  const unsigned short *qp = q.data(), *kp = k.data(), *vp = v.data();

  auto kernel = [&]() {
    tessel_attention_sm80<C>(
        qp, kp, vp,
        [&](int, int row_first, int row_last, int& key_begin, int& key_end) {  // the masks' bands
          if (mask.mode == 1) key_end = std::clamp(row_last + mask.off + 1, 0, key_end);
          if (mask.mode == 2) {
            key_end = std::clamp(row_last + 1, 0, key_end);
            key_begin = std::clamp(row_first - mask.w, key_begin, SK);
          }
        },
        [&](int, float (&s)[8][4], int row0, int key0) {
          const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
#pragma unroll
          for (int j = 0; j < 8; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int row = row0 + g + 8 * (e / 2), key = key0 + 8 * j + 2 * t + e % 2;
              s[j][e] = mask(row, key) ? -__int_as_float(0x7f800000) : s[j][e] * scale;
            }
        },
        [&](int batch, float (&o)[D / 8][4], int row0) {
          const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
#pragma unroll
          for (int j = 0; j < D / 8; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int row = row0 + g + 8 * (e / 2), col = 8 * j + 2 * t + e % 2;
              if (row < SQ) {
                const size_t i = ((size_t)batch * SQ + row) * D + col;
                out[i] = o[j][e];
                out_h[i] = to_h(o[j][e]);
                writes[i]++;
              } else if (row >= (int)(blockIdx.x + 1) * 64 || row < (int)blockIdx.x * 64) {
                bad_writes++;
              }
            }
        });
  };
  const auto t0 = std::chrono::steady_clock::now();
  emu_launch((SQ + 63) / 64, B, L::kSmemBytes, kernel);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // reference, double precision from the same 16-bit inputs
  double max_err = 0, max_err_h = 0, max_ref = 0;
  long long nan_expected = 0, nan_mismatch = 0, write_mismatch = 0;
  int worst_b = -1, worst_r = -1, worst_c = -1;
  std::vector<double> sc(SK), acc(D);
  for (int b = 0; b < B; ++b) {
    const unsigned short* qb = &q[(size_t)b * SQ * D];
    const unsigned short* kb = &k[(size_t)(b / C::GROUP) * SK * D];
    const unsigned short* vb = &v[(size_t)(b / C::GROUP) * SK * D];
    for (int r = 0; r < SQ; ++r) {
      double mx = -std::numeric_limits<double>::infinity();
      for (int j = 0; j < SK; ++j) {
        if (mask(r, j)) { sc[j] = -std::numeric_limits<double>::infinity(); continue; }
        double d = 0;
        for (int c = 0; c < D; ++c) d += (double)to_f(qb[(size_t)r * D + c]) * to_f(kb[(size_t)j * D + c]);
        sc[j] = d * (double)scale;
        mx = std::max(mx, sc[j]);
      }
      const bool all_masked = mx == -std::numeric_limits<double>::infinity();
      std::fill(acc.begin(), acc.end(), 0.0);
      double l = 0;
      if (!all_masked)
        for (int j = 0; j < SK; ++j) {
          if (sc[j] == -std::numeric_limits<double>::infinity()) continue;
          const double p = std::exp(sc[j] - mx);
          l += p;
          for (int c = 0; c < D; ++c) acc[c] += p * to_f(vb[(size_t)j * D + c]);
        }
      nan_expected += all_masked;
      for (int c = 0; c < D; ++c) {
        const size_t i = ((size_t)b * SQ + r) * D + c;
        if (writes[i] != 1) { ++write_mismatch; continue; }
        const float got = out[i], got_h = to_f(out_h[i]);
        if (all_masked) { nan_mismatch += !std::isnan(got); continue; }
        if (!std::isfinite(got)) { ++nan_mismatch; continue; }
        const double ref = acc[c] / l;
        max_ref = std::max(max_ref, std::fabs(ref));
        const double e = std::fabs(got - ref);
        if (e > max_err) max_err = e, worst_b = b, worst_r = r, worst_c = c;
        max_err_h = std::max(max_err_h, std::fabs(got_h - ref));
      }
    }
  }
  const double tol = 2e-2 * std::max(1.0, max_ref);
  const bool ok = write_mismatch == 0 && nan_mismatch == 0 && bad_writes == 0 && max_err <= tol;
  g_failures += !ok;
  std::printf("%-4s D=%-3d SQ=%-4d SK=%-4d B=%-2d kv/%d %-4s mask=%-9s | max_abs_err f32 out %.3e, %s out %.3e"
              " (max|ref| %.2f) | NaN rows %lld/%lld exp., NaN mismatches %lld, write errors %lld | %.1fs\n",
              ok ? "OK" : "FAIL", D, SQ, SK, B, C::GROUP, C::F16 ? "f16" : "bf16", mask.str().c_str(),
              max_err, C::F16 ? "f16" : "bf16", max_err_h, max_ref, nan_expected, (long long)B * SQ,
              nan_mismatch, write_mismatch + bad_writes, secs);
  if (!ok && worst_b >= 0) std::printf("     worst at batch %d row %d col %d\n", worst_b, worst_r, worst_c);
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  const char* mode = getenv("EMU_CP_ASYNC");
  emu_deferred_cp_async = mode && std::string(mode) == "deferred";
  const bool mini = argc > 1 && std::string(argv[1]) == "mini";  // small configs only
  const bool quick = mini || (argc > 1 && std::string(argv[1]) == "quick");
  std::printf("cp.async copies %s\n", emu_deferred_cp_async ? "deferred to wait_group" : "at issue");
  // the test_kernel.cu model (D 128, 1000 x 777, causal, kv over groups of 4), batch cut for time
  if (!quick) run<Cfg<128, 1000, 777, 8, 4, false>>({1, 0});
  if (!mini) run<Cfg<64, 1000, 777, 4, 2, false>>({0});
  run<Cfg<128, 64, 64, 2, 1, false>>({1, 0});
  run<Cfg<64, 64, 64, 2, 2, false>>({0});
  run<Cfg<128, 1, 130, 3, 3, false>>({0});
  run<Cfg<64, 1, 130, 2, 1, false>>({1, 0});  // row 0 sees key 0 only
  run<Cfg<128, 130, 1, 4, 2, false>>({0});
  run<Cfg<64, 130, 1, 2, 1, false>>({1, 0});
  run<Cfg<64, 200, 150, 2, 2, false>>({1, -70});   // rows 0..69 see no key: NaN
  run<Cfg<128, 200, 150, 2, 1, false>>({1, -70});
  run<Cfg<64, 300, 300, 2, 2, false>>({2, 0, 90});  // first key tiles all masked for late rows
  run<Cfg<128, 300, 200, 4, 2, true>>({1, 0});      // f16
  run<Cfg<64, 130, 777, 2, 1, true>>({1, -3});      // f16, rows 0..2 NaN
  run<Cfg<256, 130, 200, 2, 2, false>>({1, 0});     // D = 256: Q read, one K/V buffer
  run<Cfg<256, 70, 1, 2, 1, true>>({0});            // f16, one key tile
  if (!quick) run<Cfg<64, 1000, 777, 16, 4, false>>({1, 0});
  std::printf("%s: %d config(s) failed\n", g_failures ? "FAILED" : "ALL PASSED", g_failures);
  return g_failures ? 1 : 0;
}
