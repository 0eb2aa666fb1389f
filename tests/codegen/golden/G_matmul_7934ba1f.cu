
typedef int index_t;

#include "tessel/gemm_sm90.cuh"

// [16 x 512] x [512 x 4096], batch of 1; A K-major, B MN-major
struct gemm_config {
  static constexpr int N = 4096, K = 512, BATCH = 1;
  static constexpr int LDA = 512, LDB = 4096;  // operand rows as the mainloop reads them, in elements
  static constexpr bool A_MN = false, B_MN = true, F16 = false;
  static __device__ int a_batch(int batch) { return batch; }
  static __device__ int b_batch(int batch) { return batch; }
  static constexpr int BM = 16, BN = 64, BK = 64, STAGES = 8, GROUP_M = 16, SMEM = 85160, A_BOX_ROWS = 16;
  static constexpr bool TF32 = false, SPLIT = false, B_REGS = false, TMA_STORE = true, STRIDED = false, DUAL = false, GROUPED = false, SWAP = true, KEEP_A = false;
  static constexpr int K_SLICES = 1, MAX_PIECES = 0;  // (the most slices of a tile, and of all)
  static constexpr bool CUT_ALL = false;  // (every tile in K_SLICES slices)
  static constexpr long long FIXUP_BYTES = 0;
  static constexpr int TILES_N = 64;
  static __device__ int part(int&) { return 0; }
};

extern "C" __global__ void __launch_bounds__(384, 1) G_matmul_7934ba1f(const bf16_t* in0, const bf16_t* in1, bf16_t* __restrict__ out0, const __grid_constant__ tessel_tensor_map tmap0, const __grid_constant__ tessel_tensor_map tmap1, const __grid_constant__ tessel_tensor_map tmap2) {
  const auto a_map = [&](int) { return &tmap0; };
  const auto b_map = [&](int) { return &tmap1; };
  const auto out_map = [&](int) { return &tmap2; };
  tessel_gemm_sm90<gemm_config>(a_map, b_map, out_map, tessel_gemm_sm90_no_epilogue{}, 16);
}
