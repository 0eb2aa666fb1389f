
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// part 0: [1 x 128] x [128 x 256], batch of 1; A K-major, B MN-major
// part 1: [20 x 128] x [128 x 136], batch of 1; A K-major, B MN-major
struct gemm_config {
  static constexpr int N = 256, K = 128, BATCH = 1;
  static constexpr int LDA = 128, LDB = 256;  // operand rows as the mainloop reads them, in elements
  static constexpr bool A_MN = false, B_MN = true, F16 = false;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 32, BN = 64, BK = 64, STAGES = 8, GROUP_M = 16, SMEM = 103592, A_BOX_ROWS = 32;
  static constexpr bool TF32 = false, SPLIT = false, B_REGS = false, TMA_STORE = true, STRIDED = false, DUAL = false, GROUPED = true, SWAP = true, KEEP_A = false;
  static constexpr int K_SLICES = 1, MAX_PIECES = 0;  // (the most slices of a tile, and of all)
  static constexpr bool CUT_ALL = false;  // (every tile in K_SLICES slices)
  static constexpr long long FIXUP_BYTES = 0;
  static constexpr int TILES = 7;
  static __device__ tessel_gemm_sm90_work work(int t) {
    tessel_gemm_sm90_work w{0, 0, 0, 0};
    if (t < 4) {
      w.part = 0;
      tessel_gemm_sm90_band<gemm_config>(t - 0, 1, 4, w.tm, w.tn);
      return w;
    }
    w.part = 1;
    tessel_gemm_sm90_band<gemm_config>(t - 4, 1, 3, w.tm, w.tn);
    return w;
  }
  static __device__ int k_steps(int part) {
    if (part == 0) return 2;
    return 2;
  }
};

extern "C" __global__ void __launch_bounds__(384, 1) G_matmul_0973c200(const bf16_t* in0, const bf16_t* in1, const bf16_t* in2, const bf16_t* in3, bf16_t* __restrict__ out0, bf16_t* __restrict__ out1, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1, const __grid_constant__ tessel_tensor_map tmap2, const __grid_constant__ tessel_tensor_map tmap3, const __grid_constant__ tessel_tensor_map tmap4, const __grid_constant__ tessel_tensor_map tmap5) {
  const auto a_map = [&](int part) { return part == 0 ? &tmap0 : &tmap1; };
  const auto b_map = [&](int part) { return part == 0 ? &tmap2 : &tmap3; };
  const auto out_map = [&](int part) { return part == 0 ? &tmap4 : &tmap5; };
  tessel_gemm_sm90<gemm_config>(a_map, b_map, out_map, tessel_gemm_sm90_no_epilogue{}, 0);
}
