
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// part 0: [8 x 256] x [256 x 512], batch of 1; A K-major, B MN-major
// part 1: [8 x 256] x [256 x 128], batch of 1; A K-major, B MN-major
// part 2: [8 x 256] x [256 x 128], batch of 1; A K-major, B MN-major
struct gemm_config {
  static constexpr int N = 512, K = 256, BATCH = 1;
  static constexpr int LDA = 256, LDB = 512;  // operand rows as the mainloop reads them, in elements
  static constexpr bool A_MN = false, B_MN = true, F16 = false;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 16, BN = 64, BK = 64, STAGES = 8, GROUP_M = 16, SMEM = 85160, A_BOX_ROWS = 8;
  static constexpr bool TF32 = false, SPLIT = false, B_REGS = false, TMA_STORE = true, STRIDED = false, DUAL = false, GROUPED = false, SWAP = true, KEEP_A = false;
  static constexpr int K_SLICES = 1, MAX_PIECES = 0;  // (the most slices of a tile, and of all)
  static constexpr bool CUT_ALL = false;  // (every tile in K_SLICES slices)
  static constexpr long long FIXUP_BYTES = 0;
  static constexpr int TILES_N = 12;  // 8 + 2 + 2 for the parts
  static __device__ int part(int& tn) {
    if (tn < 8) return 0;
    if (tn < 10) return tn -= 8, 1;
    return tn -= 10, 2;
  }
};

extern "C" __global__ void __launch_bounds__(384, 1) G_matmul_2e1c853d(const bf16_t* in0, const bf16_t* in1, const bf16_t* in2, const bf16_t* in3, bf16_t* __restrict__ out0, bf16_t* __restrict__ out1, bf16_t* __restrict__ out2, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1, const __grid_constant__ tessel_tensor_map tmap2, const __grid_constant__ tessel_tensor_map tmap3, const __grid_constant__ tessel_tensor_map tmap4, const __grid_constant__ tessel_tensor_map tmap5, const __grid_constant__ tessel_tensor_map tmap6) {
  const auto a_map = [&](int) { return &tmap0; };
  const auto b_map = [&](int part) { return part == 0 ? &tmap1 : part == 1 ? &tmap2 : &tmap3; };
  const auto out_map = [&](int part) { return part == 0 ? &tmap4 : part == 1 ? &tmap5 : &tmap6; };
  tessel_gemm_sm90<gemm_config>(a_map, b_map, out_map, tessel_gemm_sm90_no_epilogue{}, 8);
}
