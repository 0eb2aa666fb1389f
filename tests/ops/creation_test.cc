// Creating tensors: host data, constants, ranges, and the counter-based generator.
#include <cmath>

#include "absl/base/casts.h"
#include "gtest/gtest.h"
#include "ops/philox.h"
#include "tessel.h"

namespace tessel {
namespace {

TEST(CreationTest, FromVectorConvertsToTheDtype) {
  Tensor f = from_vector({1.5f, -2, 3.25f}, {3}, DType::kBF16, Device::kCPU);
  EXPECT_EQ(f.dtype(), DType::kBF16);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{1.5f, -2, 3.25f}));
  Tensor i = from_vector(std::vector<int32_t>{1, -5}, {2, 1}, DType::kI32, Device::kCPU);
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{1, -5}));
  Tensor b = from_vector(std::vector<bool>{true, false}, {2}, DType::kBool, Device::kCPU);
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{1, 0}));
  EXPECT_TRUE(f.realized());
  EXPECT_EQ(from_vector({7}, {}, DType::kF32, Device::kCPU).to_vector<float>()[0], 7);
}

TEST(CreationTest, ConstantsAndRanges) {
  EXPECT_EQ(full({2, 2}, 2.5, DType::kF16, Device::kCPU).to_vector<float>(),
            (std::vector<float>(4, 2.5f)));
  EXPECT_EQ(zeros({3}, DType::kI32, Device::kCPU).to_vector<int32_t>(),
            (std::vector<int32_t>(3, 0)));
  EXPECT_EQ(ones({2}, DType::kBool, Device::kCPU).to_vector<bool>(),
            (std::vector<bool>{true, true}));
  EXPECT_EQ(arange(4, DType::kI32, Device::kCPU).to_vector<int32_t>(),
            (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(arange(0, DType::kF32, Device::kCPU).numel(), 0);
  EXPECT_FALSE(full({2}, 1, DType::kF32, Device::kCPU).realized());  // lazy
}

TEST(CreationTest, PhiloxMatchesPublishedAnswers) {
  // Known-answer vectors of Philox-4x32-10 (Random123's kat_vectors).
  using A4 = std::array<uint32_t, 4>;
  EXPECT_EQ(Philox4x32x10({0, 0, 0, 0}, {0, 0}),
            (A4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox4x32x10({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}),
            (A4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(
      Philox4x32x10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
      (A4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(CreationTest, GeneratorsAreDeterministicAndSeeded) {
  const std::vector<float> a = randn({1000}, 42, DType::kF32, Device::kCPU).to_vector<float>();
  const std::vector<float> b = randn({10, 100}, 42, DType::kF32, Device::kCPU).to_vector<float>();
  const std::vector<float> c = randn({1000}, 43, DType::kF32, Device::kCPU).to_vector<float>();
  EXPECT_EQ(a, b);  // element i depends on (seed, i) only
  EXPECT_NE(a, c);
  EXPECT_EQ(a[5], RandnElement(42, 5));
  // A bf16 tensor holds the f32 values rounded.
  const std::vector<float> h = randn({1000}, 42, DType::kBF16, Device::kCPU).to_vector<float>();
  for (int i = 0; i < 1000; ++i) EXPECT_NEAR(h[i], a[i], 0.004 * std::abs(a[i]) + 1e-30);
}

TEST(CreationTest, GeneratorMomentsAreRight) {
  const int n = 1 << 20;
  const std::vector<float> z = randn({n}, 7, DType::kF32, Device::kCPU).to_vector<float>();
  const std::vector<float> u = rand({n}, 7, DType::kF32, Device::kCPU).to_vector<float>();
  double m1 = 0, m2 = 0, m4 = 0, um = 0, uv = 0;
  float umin = 1, umax = 0;
  for (int i = 0; i < n; ++i) {
    m1 += z[i];
    m2 += double(z[i]) * z[i];
    m4 += std::pow(double(z[i]), 4);
    um += u[i];
    uv += (u[i] - 0.5) * (u[i] - 0.5);
    umin = std::min(umin, u[i]);
    umax = std::max(umax, u[i]);
  }
  // Standard errors at n = 2^20: mean 0.001, variance 0.0014, kurtosis ~0.0024.
  EXPECT_NEAR(m1 / n, 0, 0.005);
  EXPECT_NEAR(m2 / n, 1, 0.007);
  EXPECT_NEAR(m4 / n, 3, 0.05);
  EXPECT_NEAR(um / n, 0.5, 0.002);
  EXPECT_NEAR(uv / n, 1.0 / 12, 0.001);
  EXPECT_GE(umin, 0);
  EXPECT_LT(umax, 1);
}

// A source of 2^60 values (the most a shape may hold) whose scratch the CPU cannot hold: an
// error naming it, not std::length_error from its vector (which ended the process).
TEST(CreationTest, ASourceTooLargeForTheHostIsAnError) {
  const Tensor t = full({int64_t{1} << 60}, 1.0, DType::kF32, Device::kCPU);
  try {
    realize({t});
    FAIL() << "realized 2^60 values";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out of host memory computing full of f32"),
              std::string::npos)
        << e.what();
  }
}

// In bf16 and f16 rand truncates to the type (rounding to nearest took about one bf16 draw in
// 500 to 1.0): every value below 1, each the f32 value with the bits the type lacks cleared,
// and a value of the type's grid below p as often as p says (what a dropout mask relies on).
TEST(CreationTest, RandInSixteenBitsStaysBelowOne) {
  const int n = 1 << 20;
  const std::vector<float> wide = rand({n}, 11, DType::kF32, Device::kCPU).to_vector<float>();
  for (DType dtype : {DType::kBF16, DType::kF16}) {
    SCOPED_TRACE(DTypeName(dtype));
    const std::vector<float> u = rand({n}, 11, dtype, Device::kCPU).to_vector<float>();
    const uint32_t kept = dtype == DType::kBF16 ? 0xffff0000u : 0xffffe000u;
    int below_half = 0, wrong = 0;
    for (int i = 0; i < n; ++i) {
      wrong += u[i] < 0 || u[i] >= 1 ||
               u[i] != absl::bit_cast<float>(absl::bit_cast<uint32_t>(wide[i]) & kept);
      below_half += u[i] < 0.5f;
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_NEAR(below_half / double(n), 0.5, 0.002);
  }
}

}  // namespace
}  // namespace tessel
