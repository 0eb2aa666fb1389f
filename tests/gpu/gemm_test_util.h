// The GEMM tests' fixture and comparisons (gemm_test.cc, gemm_groups_test.cc: one test binary,
// `gemm_test`). Bounds: bf16 outputs 3.2e-2 and f16 8e-3 relative (two ulps: the GPU sums in
// another order, and a rounding step may fall either side), plus 1e-2 absolute; f32 1e-4
// relative (float sums of up to 4096 products).
#ifndef TESSEL_TESTS_GPU_GEMM_TEST_UTIL_H_
#define TESSEL_TESTS_GPU_GEMM_TEST_UTIL_H_

#include <functional>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
#include "tessel.h"
#include "tests/gpu/gpu_compare.h"
#include "tests/test_util.h"

namespace tessel::gemm_testing {

// Skips where no GPU is usable (gpu_compare, whose environment also honours
// TESSEL_TEST_STREAM and TESSEL_TEST_DEVICE).
class GemmTest : public testing::GpuTest {};

inline double Bound(DType d) { return d == DType::kBF16 ? 3.2e-2 : d == DType::kF16 ? 8e-3 : 1e-4; }

inline Tensor Data(const Shape& shape, uint64_t seed, DType dtype, Device d) {
  return testing::Data(shape, seed, dtype, d, -1, 1);
}

// Builds the graph on both devices and compares every output (rtol < 0: Bound(dtype)).
inline void Compare(const std::function<std::vector<Tensor>(Device)>& build, double rtol = -1,
                    double atol = 1e-2) {
  std::vector<Tensor> gpu = build(Device::kCUDA), cpu = build(Device::kCPU);
  realize(gpu);
  for (size_t i = 0; i < gpu.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "output " << i << " " << gpu[i]);
    ASSERT_EQ(gpu[i].shape(), cpu[i].shape());
    testing::ExpectClose(gpu[i].to_vector<float>(), cpu[i].to_vector<double>(),
                         rtol < 0 ? Bound(gpu[i].dtype()) : rtol, atol);
  }
}

// Whether the kernels for `outputs` include a tensor-core GEMM: the Hopper one on sm_90a,
// the mma.sync one elsewhere (TESSEL_ARCH=sm_90 runs it on Hopper).
inline bool UsesTensorCores(const std::vector<Tensor>& outputs) {
  const Target t = runtime::DeviceTarget();
  const char* mainloop =
      t.major == 9 && t.arch_specific ? "tessel_gemm_sm90<" : "tessel_gemm_sm80<";
  for (const KernelInfo& k : inspect(outputs)) {
    if (absl::StrContains(k.source, mainloop)) return true;
  }
  return false;
}

inline bool OnTensorCoreGpu() { return runtime::DeviceTarget().major >= 8; }

using Build = std::function<std::vector<Tensor>(Device)>;

// Each program against the CPU; on sm_90a also one kernel (GEMMs grouped by the planner).
inline void CompareAsOneKernel(const std::vector<Build>& builds, double atol = 1e-2) {
  const Target t = runtime::DeviceTarget();
  for (const Build& build : builds) {
    if (t.major == 9 && t.arch_specific) {
      EXPECT_EQ(inspect(build(Device::kCUDA)).size(), 1u) << explain(build(Device::kCUDA));
    }
    Compare(build, -1, atol);
  }
}

}  // namespace tessel::gemm_testing

#endif  // TESSEL_TESTS_GPU_GEMM_TEST_UTIL_H_
