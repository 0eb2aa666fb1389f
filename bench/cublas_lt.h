// cuBLASLt, the baseline of the GEMM benchmarks only: opened with dlopen from the CUDA
// Toolkit on the GPU machine, never linked into tessel.
#ifndef TESSEL_BENCH_CUBLAS_LT_H_
#define TESSEL_BENCH_CUBLAS_LT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"

namespace tessel::bench {

enum class LtEpilogue { kNone, kBiasGelu };
// kBf16: bf16 operands and result. kTf32: f32 operands and result, computed on TF32 tensor
// cores (CUBLAS_COMPUTE_32F_FAST_TF32).
enum class LtType { kBf16, kTf32, kF32 };  // kF32: exact (SGEMM)

// A strided batch: `count` GEMMs, each operand's matrices that many elements apart (0: the
// same matrix for every entry, a broadcast).
struct LtBatch {
  int64_t count = 1;
  int64_t a_stride = 0, b_stride = 0, d_stride = 0;
};

// D[m, n] = A[m, k] B[k, n] (+ bias[n], GELU), all row-major, f32 accumulation, with the
// algorithm cuBLASLt's heuristic picks first; batched where `batch.count` > 1.
class LtGemm {
 public:
  static absl::StatusOr<LtGemm> Create(int64_t m, int64_t n, int64_t k, LtEpilogue epilogue,
                                       CUdeviceptr bias, LtType type = LtType::kBf16,
                                       const LtBatch& batch = LtBatch());
  absl::Status Run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr d) const;

 private:
  struct Plan;
  const Plan* plan_ = nullptr;  // lives for the process, as the benchmarks do
};

}  // namespace tessel::bench

#endif  // TESSEL_BENCH_CUBLAS_LT_H_
