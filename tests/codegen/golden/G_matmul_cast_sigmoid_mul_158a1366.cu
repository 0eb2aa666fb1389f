
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// dual, first: [4096 x 64] x [64 x 1160], batch of 1; A K-major, B MN-major
// dual, second: [4096 x 64] x [64 x 1160], batch of 1; A K-major, B MN-major
struct gemm_config {
  static constexpr int N = 1160, K = 64, BATCH = 1;
  static constexpr int LDA = 64, LDB = 1160;  // operand rows as the mainloop reads them, in elements
  static constexpr bool A_MN = false, B_MN = true, F16 = false;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 128, BN = 128, BK = 64, STAGES = 3, GROUP_M = 16, SMEM = 214104, A_BOX_ROWS = 128;
  static constexpr bool TF32 = false, SPLIT = false, B_REGS = false, TMA_STORE = false, STRIDED = false, DUAL = true, GROUPED = false, SWAP = false, KEEP_A = true;
  static constexpr int K_SLICES = 1, MAX_PIECES = 0;  // (the most slices of a tile, and of all)
  static constexpr bool CUT_ALL = false;  // (every tile in K_SLICES slices)
  static constexpr long long FIXUP_BYTES = 0;
  static constexpr int TILES_N = 10;
  static __device__ int part(int&) { return 0; }
};

extern "C" __global__ void __launch_bounds__(384, 1) G_matmul_cast_sigmoid_mul_158a1366(const bf16_t* in0, const bf16_t* in1, const bf16_t* in2, bf16_t* __restrict__ out0, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1, const __grid_constant__ tessel_tensor_map tmap2) {
  const auto a_map = [&](int) { return &tmap0; };
  const auto b_map = [&](int part) { return part == 0 ? &tmap1 : &tmap2; };
  // The epilogue warps: outputs (row, col + 64 (k / 8) + k % 8), k < 16, from the matmul's 16-bit values in pairs, mm[k / 2] (the second matmul's: mm2).
  tessel_gemm_sm90<gemm_config>(a_map, b_map, tessel_gemm_sm90_no_store{}, [&](const unsigned (&mm)[8], const unsigned (&mm2)[8], int part, int batch, int row, int col) {
    float sigmoid0[16];
    #pragma unroll
    for (int k = 0; k < 16; ++k) sigmoid0[k] = tessel_rcp(1.0f + expf(-tessel_bf16_lane(mm, k)));
    float mul0[16];
    #pragma unroll
    for (int k = 0; k < 16; ++k) mul0[k] = (tessel_bf16_lane(mm, k) * sigmoid0[k]);
    unsigned cvt0[8];
    #pragma unroll
    for (int p = 0; p < 8; ++p) cvt0[p] = tessel_pack_bf16(mul0[2 * p], mul0[2 * p + 1]);
    unsigned mul1[8];
    #pragma unroll
    for (int p = 0; p < 8; ++p) mul1[p] = tessel_mul_bf16x2(cvt0[p], mm2[p]);
    #pragma unroll
    for (int k = 0; k < 16; k += 8) {
      tessel_vec<unsigned, 4> vec;
      #pragma unroll
      for (int j = 0; j < 4; ++j) vec.v[j] = mul1[k / 2 + j];
      if ((col + k % 8 + 64 * (k / 8)) < 1160) tessel_store_vec<unsigned, 4>((unsigned*)(out0 + (row * 1160 + (col + k % 8 + 64 * (k / 8)))), vec);
    }
  }, 4096);
}
