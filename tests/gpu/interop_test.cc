// tessel and plain CUDA code sharing device memory: a kernel of the test's own (NVRTC and
// the driver API, as any CUDA program would) fills a cuMemAlloc'd buffer, tessel computes from
// it through from_blob, and a second plain kernel reads tessel's result through data_ptr.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/cuda_driver.h"
#include "runtime/nvrtc_compiler.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

constexpr char kPlainKernels[] = R"(
extern "C" __global__ void fill(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.001f * i;
}
extern "C" __global__ void twice(const float* y, float* z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = 2.0f * y[i];
}
)";

class InteropGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GetBackend(Device::kCUDA).ok()) GTEST_SKIP() << "no usable GPU";
    absl::StatusOr<const runtime::Driver*> driver = runtime::GetDriver();
    ASSERT_TRUE(driver.ok()) << driver.status();
    cu_ = *driver;
    // What a CUDA runtime program does: the primary context of device 0, current.
    CUdevice device;
    ASSERT_EQ(cu_->cuDeviceGet(&device, 0), CUDA_SUCCESS);
    ASSERT_EQ(cu_->cuDevicePrimaryCtxRetain(&context_, device), CUDA_SUCCESS);
    ASSERT_EQ(cu_->cuCtxSetCurrent(context_), CUDA_SUCCESS);
    absl::StatusOr<runtime::CompileOutput> out =
        runtime::CompileCuda({"plain", kPlainKernels, {}, 0}, runtime::DeviceTarget());
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(cu_->cuModuleLoadData(&module_, out->cubin.data()), CUDA_SUCCESS);
    ASSERT_EQ(cu_->cuModuleGetFunction(&fill_, module_, "fill"), CUDA_SUCCESS);
    ASSERT_EQ(cu_->cuModuleGetFunction(&twice_, module_, "twice"), CUDA_SUCCESS);
  }

  void Launch(CUfunction f, std::vector<void*> args, int n) {
    ASSERT_EQ(
        cu_->cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args.data(), nullptr),
        CUDA_SUCCESS);
    ASSERT_EQ(cu_->cuCtxSynchronize(), CUDA_SUCCESS);
  }

  const runtime::Driver* cu_ = nullptr;
  CUcontext context_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction fill_ = nullptr, twice_ = nullptr;
};

TEST_F(InteropGpuTest, PlainKernelsShareMemoryWithTessel) {
  int n = 5000;
  CUdeviceptr x = 0, z = 0;
  ASSERT_EQ(cu_->cuMemAlloc(&x, n * sizeof(float)), CUDA_SUCCESS);
  ASSERT_EQ(cu_->cuMemAlloc(&z, n * sizeof(float)), CUDA_SUCCESS);
  Launch(fill_, {&x, &n}, n);  // synchronized: the values are there before tessel reads them
  bool released = false;
  {
    Tensor t = from_blob(reinterpret_cast<void*>(x), {n}, DType::kF32, Device::kCUDA, [&](void* p) {
      released = true;
      cu_->cuMemFree(reinterpret_cast<CUdeviceptr>(p));
    });
    Tensor y = exp(t) + 1.0;
    const void* py = data_ptr(y);  // realizes y; t's memory is still tessel's to read
    synchronize();
    CUdeviceptr yp = reinterpret_cast<CUdeviceptr>(py);
    Launch(twice_, {&yp, &z, &n}, n);
    EXPECT_FALSE(released);  // t still holds it
    t = Tensor();
    EXPECT_TRUE(released);  // realized y let its producers go: nothing uses the memory now
  }
  std::vector<float> got(n);
  ASSERT_EQ(cu_->cuMemcpyDtoHAsync(got.data(), z, n * sizeof(float), nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cu_->cuCtxSynchronize(), CUDA_SUCCESS);
  for (int i = 0; i < n; ++i) {
    const double want = 2 * (std::exp(0.001 * i) + 1);
    ASSERT_NEAR(got[i], want, 2e-6 * want) << i;
  }
  cu_->cuMemFree(z);
}

TEST_F(InteropGpuTest, HostOrMisalignedPointersAreErrors) {
  std::vector<float> host(8);
  testing::ExpectError([&] { from_blob(host.data() + 4, {4}, DType::kF32, Device::kCUDA); },
                       {"from_blob", "is not device memory"});
  CUdeviceptr x = 0;
  ASSERT_EQ(cu_->cuMemAlloc(&x, 64), CUDA_SUCCESS);
  testing::ExpectError(
      [&] { from_blob(reinterpret_cast<float*>(x) + 1, {4}, DType::kF32, Device::kCUDA); },
      {"from_blob", "not 16-byte aligned"});
  cu_->cuMemFree(x);
}

}  // namespace
}  // namespace tessel
