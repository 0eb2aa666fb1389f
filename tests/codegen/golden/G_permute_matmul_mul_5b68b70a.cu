
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// [20 x 64] x [64 x 45], batch of 1; A K-major, B K-major
struct gemm_config {
  static constexpr int N = 45, K = 64, BATCH = 1;
  static constexpr int LDA = 64, LDB = 64;  // operand rows as the mainloop reads them, in elements
  static constexpr bool A_MN = false, B_MN = false, F16 = true;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 32, BN = 64, BK = 64, STAGES = 8, GROUP_M = 16, SMEM = 103592, A_BOX_ROWS = 24;
  static constexpr bool TF32 = false, SPLIT = false, B_REGS = false, TMA_STORE = false, STRIDED = true, DUAL = false, GROUPED = false, SWAP = true, KEEP_A = false;
  static constexpr int K_SLICES = 1, MAX_PIECES = 0;  // (the most slices of a tile, and of all)
  static constexpr bool CUT_ALL = false;  // (every tile in K_SLICES slices)
  static constexpr long long FIXUP_BYTES = 0;
  static constexpr int TILES_N = 1;
  static __device__ int part(int&) { return 0; }
};

extern "C" __global__ void __launch_bounds__(384, 1) G_permute_matmul_mul_5b68b70a(const f16_t* in0, const f16_t* in1, f16_t* __restrict__ out0, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1, float s0) {
  const auto a_map = [&](int) { return &tmap0; };
  const auto b_map = [&](int) { return &tmap1; };
  // The epilogue warps: outputs (row, col + 8 k), k < 8, from the matmul's 16-bit values in pairs, mm[k / 2].
  tessel_gemm_sm90<gemm_config>(a_map, b_map, tessel_gemm_sm90_no_store{}, [&](const unsigned (&mm)[4], int part, int batch, int row, int col) {
    unsigned mul0[4];
    #pragma unroll
    for (int p = 0; p < 4; ++p) mul0[p] = tessel_mul_f16x2(mm[p], tessel_pack_f16(s0, s0));
    #pragma unroll
    for (int k = 0; k < 8; ++k) if (row < 20 && (col + 8 * k) < 45) out0[(row * 45 + (col + 8 * k))] = tessel_float_to_f16(tessel_f16_lane(mul0, k));
  }, 20);
}
