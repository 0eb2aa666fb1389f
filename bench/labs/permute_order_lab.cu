// Lab: permute(x, {3, 2, 1, 0}) * 2 of [64, 256, 32, 128] bf16, which tessel runs at 81.1% of
// copy (bench/RESULTS.md, thirty-fourth session; f32 88.8%). The 64 rows of x's leading axis
// lie 2 MB apart, as do the result's 128; a tile of `along` positions along x's contiguous
// axis (the result's leading one) by `across` along the result's contiguous axis (x's leading
// one) reads `across` rows of x from as many 2 MB pages and writes `along` rows of the result
// to along / 2 pages. The question: is it the tile's shape (how many pages a block touches),
// or the order blocks take the tiles in (which pages the blocks in flight share)?
// Variants, each a block of 256 threads through one padded shared tile, as the generated
// kernel (transpose_codegen.cc):
//   tile along x across, order:
//     base: the generated one (64 x 32): the across tile fastest, then along, then x's axis 1
//           (8 KB apart in x, 128 bytes in the result), then x's axis 2.
//     a1:   x's axis 2 fastest (256 bytes apart in x, 32 KB in the result), then axis 1,
//           then the tiles.
//     a2:   x's axis 1 fastest, then axis 2, then the tiles.
//     diag: base's order with the tile coordinates shifted by the block's row of tiles
//           (diagonal order: blocks in flight start in different pages).
//   gen:    base loading x through ld.global (not .nc), as the generated kernel does (its
//           inputs are not __restrict__: kernel_common.cc says why).
//   pairs:  64 x 32 in base's order, a pair of bf16 a thread both ways (4-byte loads along
//           x's rows and 4-byte stores along the result's), with and without .nc; and
//           pairs one way only (the other as base).
//   copy:   the same bytes by float4 (the ceiling).
// Prints each variant's time, its share of the copy, and whether it matches base bit for bit.
// Build: bench/labs/permute_order_lab.sh; run dist/lab/permute_order_lab.
#include <cuda_bf16.h>

#include <cstdio>
#include <vector>

#include "lab_timing.cuh"

using bf16 = __nv_bfloat16;

// x [D0, D1, D2, D3] -> y [D3, D2, D1, D0].
constexpr int D0 = 64, D1 = 256, D2 = 32, D3 = 128;
constexpr long long N = (long long)D0 * D1 * D2 * D3;

enum Order { kBase, kAxis2First, kAxis1First, kDiagonal };

template <bool kNc, typename T>
__device__ __forceinline__ T load(const T* p) {
  return kNc ? __ldg(p) : __ldca(p);
}

template <int kAlong, int kAcross, Order kOrder, bool kNc = true>
__global__ void __launch_bounds__(256)
    permute(const bf16* __restrict__ x, bf16* __restrict__ y, float s) {
  constexpr int kTilesAlong = D3 / kAlong, kTilesAcross = D0 / kAcross;
  __shared__ bf16 tile[kAcross][kAlong + 2];  // a 4-byte bank of padding a row
  // The block's coordinates, the first taken the fastest.
  int b = blockIdx.x, t_across, t_along, i1, i2;
  auto next = [&b](int extent) {
    const int at = b % extent;
    b /= extent;
    return at;
  };
  if (kOrder == kBase || kOrder == kDiagonal) {
    t_across = next(kTilesAcross);
    t_along = next(kTilesAlong);
    i1 = next(D1);
    i2 = next(D2);
    if (kOrder == kDiagonal) {
      t_across = (t_across + i1) % kTilesAcross;
      t_along = (t_along + i1 / kTilesAcross) % kTilesAlong;
    }
  } else {
    if (kOrder == kAxis2First) {
      i2 = next(D2);
      i1 = next(D1);
    } else {
      i1 = next(D1);
      i2 = next(D2);
    }
    t_across = next(kTilesAcross);
    t_along = next(kTilesAlong);
  }
  const int at3 = t_along * kAlong, at0 = t_across * kAcross;
  {  // read along x's rows
    const int c = threadIdx.x % kAlong, r = threadIdx.x / kAlong;
#pragma unroll
    for (int j = 0; j < kAcross; j += 256 / kAlong) {
      const long long i = (((long long)(at0 + r + j) * D1 + i1) * D2 + i2) * D3 + at3 + c;
      tile[r + j][c] = __float2bfloat16(__bfloat162float(load<kNc>(x + i)) * s);
    }
  }
  __syncthreads();
  {  // written along y's rows
    const int c = threadIdx.x % kAcross, r = threadIdx.x / kAcross;
#pragma unroll
    for (int j = 0; j < kAlong; j += 256 / kAcross) {
      const long long o = (((long long)(at3 + r + j) * D2 + i2) * D1 + i1) * D0 + at0 + c;
      y[o] = tile[c][r + j];
    }
  }
}

// 64 along x 32 across in base's order, pairs of bf16 one way or both.
template <bool kNc, bool kPairLoads = true, bool kPairStores = true>
__global__ void __launch_bounds__(256)
    permute_pairs(const bf16* __restrict__ x, bf16* __restrict__ y, float s) {
  constexpr int kAlong = 64, kAcross = 32;
  __shared__ bf16 tile[kAcross][kAlong + 2];
  int b = blockIdx.x;
  const int t_across = b % (D0 / kAcross);
  b /= D0 / kAcross;
  const int t_along = b % (D3 / kAlong);
  b /= D3 / kAlong;
  const int i1 = b % D1, i2 = b / D1;
  const int at3 = t_along * kAlong, at0 = t_across * kAcross;
  if (kPairLoads) {  // 32 threads a row of x, a pair each; 8 rows a step
    const int c = threadIdx.x % 32 * 2, r = threadIdx.x / 32;
#pragma unroll
    for (int j = 0; j < kAcross; j += 8) {
      const long long i = (((long long)(at0 + r + j) * D1 + i1) * D2 + i2) * D3 + at3 + c;
      const __nv_bfloat162 v = load<kNc>(reinterpret_cast<const __nv_bfloat162*>(x + i));
      tile[r + j][c] = __float2bfloat16(__bfloat162float(v.x) * s);
      tile[r + j][c + 1] = __float2bfloat16(__bfloat162float(v.y) * s);
    }
  } else {  // 64 threads a row, one each; 4 rows a step
    const int c = threadIdx.x % 64, r = threadIdx.x / 64;
#pragma unroll
    for (int j = 0; j < kAcross; j += 4) {
      const long long i = (((long long)(at0 + r + j) * D1 + i1) * D2 + i2) * D3 + at3 + c;
      tile[r + j][c] = __float2bfloat16(__bfloat162float(load<kNc>(x + i)) * s);
    }
  }
  __syncthreads();
  if (kPairStores) {  // 16 threads a row of y, a pair each; 16 rows a step
    const int c = threadIdx.x % 16 * 2, r = threadIdx.x / 16;
#pragma unroll
    for (int j = 0; j < kAlong; j += 16) {
      const long long o = (((long long)(at3 + r + j) * D2 + i2) * D1 + i1) * D0 + at0 + c;
      __nv_bfloat162 v;
      v.x = tile[c][r + j];
      v.y = tile[c + 1][r + j];
      *reinterpret_cast<__nv_bfloat162*>(y + o) = v;
    }
  } else {  // 32 threads a row, one each; 8 rows a step
    const int c = threadIdx.x % 32, r = threadIdx.x / 32;
#pragma unroll
    for (int j = 0; j < kAlong; j += 8) {
      const long long o = (((long long)(at3 + r + j) * D2 + i2) * D1 + i1) * D0 + at0 + c;
      y[o] = tile[c][r + j];
    }
  }
}

int main() {
  const Bf16Lab lab = bf16_lab(N);
  bf16 *x = lab.x, *ref = lab.ref, *y = lab.y;
  const float copy = lab.copy_ms;
  const int blocks = (int)(N / (64 * 32));
  const float ms_base = time_it([&] { permute<64, 32, kBase><<<blocks, 256>>>(x, ref, 2.0f); });
  std::vector<bf16> href(N), hy(N), hx(N);
  CK(cudaMemcpy(href.data(), ref, N * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hx.data(), x, N * 2, cudaMemcpyDeviceToHost));
  long long wrong = 0;  // base against the host, every 4099th element of y
  for (long long o = 0; o < N; o += 4099) {
    const long long a0 = o % D0, a1 = o / D0 % D1, a2 = o / D0 / D1 % D2, a3 = o / D0 / D1 / D2;
    const float want = __bfloat162float(hx[((a0 * D1 + a1) * D2 + a2) * D3 + a3]) * 2.0f;
    wrong += __bfloat162float(href[o]) != want;
  }
  printf("%-16s %.4f ms %6.1f%% of copy  (host: %lld of %lld sampled wrong)\n", "base 64x32",
         ms_base, 100 * copy / ms_base, wrong, N / 4099 + 1);
  auto run = [&](const char* name, auto kernel, int along, int across) {
    CK(cudaMemset(y, 0, N * 2));
    const int grid = (int)(N / (along * across));
    const float ms = time_it([&] { kernel<<<grid, 256>>>(x, y, 2.0f); });
    CK(cudaMemcpy(hy.data(), y, N * 2, cudaMemcpyDeviceToHost));
    long long differ = 0;
    for (long long i = 0; !lab_once && i < N; ++i) {
      differ += *(unsigned short*)&hy[i] != *(unsigned short*)&href[i];
    }
    printf("%-22s %.4f ms %6.1f%% of copy  (%lld differ from base)\n", name, ms, 100 * copy / ms,
           differ);
  };
  run("64x32 gen", permute<64, 32, kBase, false>, 64, 32);
  run("64x32 pairs", permute_pairs<true>, 64, 32);
  run("64x32 pairs gen", permute_pairs<false>, 64, 32);
  run("64x32 pair loads gen", permute_pairs<false, true, false>, 64, 32);
  run("64x32 pair stores gen", permute_pairs<false, false, true>, 64, 32);
  run("64x32 neither gen", permute_pairs<false, false, false>, 64, 32);
  run("64x32 diag gen", permute<64, 32, kDiagonal, false>, 64, 32);
  run("64x32 a1", permute<64, 32, kAxis2First>, 64, 32);
  run("64x32 a2", permute<64, 32, kAxis1First>, 64, 32);
  run("64x32 diag", permute<64, 32, kDiagonal>, 64, 32);
  run("64x64", permute<64, 64, kBase>, 64, 64);
  run("64x64 a1", permute<64, 64, kAxis2First>, 64, 64);
  run("128x16", permute<128, 16, kBase>, 128, 16);
  run("128x16 a1", permute<128, 16, kAxis2First>, 128, 16);
  run("128x32", permute<128, 32, kBase>, 128, 32);
  run("32x64", permute<32, 64, kBase>, 32, 64);
  run("32x64 a1", permute<32, 64, kAxis2First>, 32, 64);
  run("32x32", permute<32, 32, kBase>, 32, 32);
  run("32x32 diag", permute<32, 32, kDiagonal>, 32, 32);
  return 0;
}
