// GPU tests' comparison of the CUDA backend with the CPU backend, with per-dtype bounds:
//   f32: |gpu - cpu| <= 1e-5 |cpu| + 1e-5   (transcendentals differ by float ulps)
//   f16: 4e-3 relative (2 ulps), bf16: 1.6e-2 relative (2 ulps) plus the same absolute term.
#ifndef TESSEL_TESTS_GPU_GPU_COMPARE_H_
#define TESSEL_TESTS_GPU_GPU_COMPARE_H_

#include <functional>
#include <vector>

#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel::testing {

// Skips the test where no GPU is usable.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

// The relative bound for results stored in `dtype` (above).
double Bound(DType dtype);

// Builds the graph on both devices, realizes the CUDA one and compares every output
// (rtol < 0: Bound of the output's dtype).
void Compare(const std::function<std::vector<Tensor>(Device)>& build, double rtol = -1,
             double atol = 1e-5);

// Uniform random data in [lo, hi) from `seed`, the same on every device.
Tensor Data(const Shape& shape, uint64_t seed, DType dtype, Device d, float lo = -2, float hi = 2);

// Integer indices in [0, n), the same on every device.
Tensor Ids(const Shape& shape, uint64_t seed, int64_t n, DType dtype, Device d);

}  // namespace tessel::testing

#endif  // TESSEL_TESTS_GPU_GPU_COMPARE_H_
