#include "tests/gpu/gpu_compare.h"

#include <cstdlib>
#include <memory>
#include <optional>

#include "core/environment.h"
#include "tests/test_util.h"

namespace tessel::testing {
namespace {

// TESSEL_TEST_DEVICE=i runs every test with device i current; TESSEL_TEST_STREAM=1 with a
// stream of its own current instead of the default one (README, "Devices and streams").
class PlacementEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (!GetBackend(Device::kCUDA).ok()) return;
    if (std::optional<int64_t> device = EnvInteger("TESSEL_TEST_DEVICE", 0, 1023)) {
      set_device(static_cast<int>(*device));
    }
    if (EnvSwitch("TESSEL_TEST_STREAM", false)) {
      guard_ = std::make_unique<StreamGuard>(Stream::create());
    }
  }
  void TearDown() override { guard_.reset(); }

 private:
  std::unique_ptr<StreamGuard> guard_;
};

const auto* const kPlacement = ::testing::AddGlobalTestEnvironment(new PlacementEnvironment());

}  // namespace

void GpuTest::SetUp() {
  if (!GetBackend(Device::kCUDA).ok()) GTEST_SKIP() << "no usable GPU";
}

double Bound(DType dtype) {
  switch (dtype) {
    case DType::kBF16:
      return 1.6e-2;
    case DType::kF16:
      return 4e-3;
    case DType::kF32:
      return 1e-5;
    case DType::kF64:
      return 1e-13;
    default:
      return 0;
  }
}

void Compare(const std::function<std::vector<Tensor>(Device)>& build, double rtol, double atol) {
  std::vector<Tensor> gpu = build(Device::kCUDA), cpu = build(Device::kCPU);
  realize(gpu);
  for (size_t i = 0; i < gpu.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "output " << i << " " << gpu[i]);
    ASSERT_EQ(gpu[i].device(), Device::kCUDA);
    ASSERT_EQ(gpu[i].shape(), cpu[i].shape());
    ASSERT_EQ(gpu[i].dtype(), cpu[i].dtype());
    if (!IsFloating(gpu[i].dtype())) {  // integers and bool: exactly (i64 past 2^53 too)
      EXPECT_EQ(gpu[i].to_vector<int64_t>(), cpu[i].to_vector<int64_t>());
      continue;
    }
    const std::vector<double> want = cpu[i].to_vector<double>();
    const std::vector<double> got = gpu[i].to_vector<double>();
    ExpectClose(got, want, rtol >= 0 ? rtol : Bound(gpu[i].dtype()), atol);
  }
}

Tensor Data(const Shape& shape, uint64_t seed, DType dtype, Device d, float lo, float hi) {
  return from_vector(RandomValues(shape.numel(), seed, lo, hi), shape, dtype, d);
}

Tensor Ids(const Shape& shape, uint64_t seed, int64_t n, DType dtype, Device d) {
  return cast(floor(Data(shape, seed, DType::kF32, d, 0, static_cast<float>(n) - 0.01f)), dtype);
}

}  // namespace tessel::testing
