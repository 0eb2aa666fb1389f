
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// part 0: [64 x 64] x [64 x 96], batch of 1; A K-major, B K-major
// part 1: [64 x 64] x [64 x 45], batch of 1; A K-major, B K-major
struct gemm_config {
  static constexpr int N = 96, K = 64, BATCH = 1;
  static constexpr int LDA = 64, LDB = 64;  // operand rows as the mainloop reads them, in elements
  static constexpr bool A_MN = false, B_MN = false, F16 = false;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 64, BN = 64, BK = 64, STAGES = 8, GROUP_M = 16, SMEM = 140456, A_BOX_ROWS = 64;
  static constexpr bool TF32 = false, SPLIT = false, B_REGS = false, TMA_STORE = false, STRIDED = true, DUAL = false, GROUPED = false, SWAP = false, KEEP_A = false;
  static constexpr int K_SLICES = 1, MAX_PIECES = 0;  // (the most slices of a tile, and of all)
  static constexpr bool CUT_ALL = false;  // (every tile in K_SLICES slices)
  static constexpr long long FIXUP_BYTES = 0;
  static constexpr int TILES_N = 3;  // 2 + 1 for the parts
  static __device__ int part(int& tn) {
    if (tn < 2) return 0;
    return tn -= 2, 1;
  }
};

extern "C" __global__ void __launch_bounds__(384, 1) G_permute_matmul_permute_matmul_907204c6(const bf16_t* in0, const bf16_t* in1, const bf16_t* in2, bf16_t* __restrict__ out0, bf16_t* __restrict__ out1, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1, const __grid_constant__ tessel_tensor_map tmap2) {
  const auto a_map = [&](int) { return &tmap0; };
  const auto b_map = [&](int part) { return part == 0 ? &tmap1 : &tmap2; };
  // The epilogue warps: outputs (row, col + 8 k), k < 8, from the matmul's 16-bit values in pairs, mm[k / 2].
  tessel_gemm_sm90<gemm_config>(a_map, b_map, tessel_gemm_sm90_no_store{}, [&](const unsigned (&mm)[4], int part, int batch, int row, int col) {
    switch (part) {
      case 0: {
        #pragma unroll
        for (int k = 0; k < 8; ++k) if ((col + 8 * k) < 96) out0[(row * 96 + (col + 8 * k))] = tessel_float_to_bf16(tessel_bf16_lane(mm, k));
      } break;
      case 1: {
        #pragma unroll
        for (int k = 0; k < 8; ++k) if ((col + 8 * k) < 45) out1[(row * 45 + (col + 8 * k))] = tessel_float_to_bf16(tessel_bf16_lane(mm, k));
      } break;
    }
  }, 64);
}
