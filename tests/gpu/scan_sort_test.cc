// Scans and sorts on the GPU against the CPU backend (bounds as in gpu_test.cc).
// Needs a GPU: Bazel tag "gpu"; tools/gpu_bundle.sh packs it for the device machine.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/gpu/gpu_compare.h"

namespace tessel {
namespace {

using testing::Compare;
using testing::Data;
using testing::GpuTest;

// Scans on the GPU: contiguous lines (a block per line, ragged and longer than a tile) and
// strided ones, sums and products, floats accumulating in double as on the CPU (so f32
// results agree to the last bit nearly everywhere) and integers wrapping in 64 bits.
TEST_F(GpuTest, Scans) {
  for (DType dt : {DType::kF32, DType::kBF16, DType::kF64}) {
    Compare([dt](Device d) {
      const Tensor x = Data({5, 3001}, 31, dt, d);
      const Tensor y = Data({7, 130, 9}, 32, dt, d, 0.9f, 1.1f);
      return std::vector<Tensor>{
          cumsum(x, 1),  cumsum(x, 0), cumsum(exp(x) - 1.0, -1),   cumprod(y, 1),
          cumprod(y, 2), cumsum(y, 0), cumsum(reshape(x, {-1}), 0)};
    });
  }
  Compare([](Device d) {
    const Tensor i = cast(floor(Data({4, 1000}, 33, DType::kF32, d, -50, 50)), DType::kI32);
    const Tensor big =
        from_vector(std::vector<int64_t>(300, int64_t{1} << 61), {300}, DType::kI64, d);
    return std::vector<Tensor>{cumsum(i, 1), cumsum(gt(i, 0.0), 0),
                               cumprod(remainder(i, 3.0) + 1, 1), cumsum(big, 0)};
  });
}

// topk on the GPU (k <= 32: composed of extreme reductions): values and indices as the
// CPU's sort gives them, with ties, NaN and -inf, staged and streamed rows, every axis.
TEST_F(GpuTest, SmallTopK) {
  for (DType dt : {DType::kF32, DType::kBF16, DType::kI32}) {
    Compare([dt](Device d) {
      const Tensor nan =
          where(gt(Data({9, 300}, 41, DType::kF32, d), 1.8), NAN, zeros({}, DType::kF32, d));
      const Tensor x = cast(floor(Data({9, 300}, 42, DType::kF32, d, -4, 4)) + nan, dt);
      const Tensor wide = cast(Data({2, 20000}, 43, DType::kF32, d), dt);
      std::vector<Tensor> out;
      for (const auto& [values, indices] :
           {topk(x, 5, 1), topk(x, 3, 0, false), topk(wide, 32, -1), topk(x, 1, 1, false)}) {
        out.push_back(values);
        out.push_back(indices);
      }
      return out;
    });
  }
}

// Lines long enough to chain their tiles across blocks (one line, or a few: more than one
// group of 256 tiles of 4096, the last tile ragged), sums and products, floats and integers;
// and the same bits from run to run (a fixed order, whichever block finishes first).
TEST_F(GpuTest, ChainedScans) {
  // Lengths not a multiple of 4 (scalar loads and stores) and multiples of 4 (vectors).
  constexpr int64_t kLong = 4096 * 300 + 77, kLonger = 4096 * 513 + 5, kWhole = 4096 * 257 + 12;
  for (DType dt : {DType::kF32, DType::kF64, DType::kBF16}) {
    Compare([dt](Device d) {
      const Tensor x = Data({2, kLong}, 51, dt, d);
      const Tensor y = Data({kLonger}, 52, dt, d, 0.99999f, 1.00001f);
      const Tensor z = Data({3, kWhole}, 55, dt, d);
      return std::vector<Tensor>{cumsum(x, 1), cumsum(x * 2.0 + 1.0, -1), cumprod(y, 0),
                                 cumsum(z, 1)};
    });
  }
  Compare([](Device d) {
    const Tensor i = cast(floor(Data({kLonger}, 53, DType::kF32, d, -50, 50)), DType::kI32);
    const Tensor w = cast(floor(Data({kWhole}, 56, DType::kF32, d, -50, 50)), DType::kI64);
    return std::vector<Tensor>{cumsum(i, 0), cumsum(gt(i, 0.0), 0), cumsum(w, 0)};
  });
  const Tensor x = Data({kLonger}, 54, DType::kF64, Device::kCUDA);
  const std::vector<double> first = cumsum(x, 0).to_vector<double>();
  for (int run = 0; run < 3; ++run) EXPECT_EQ(cumsum(x, 0).to_vector<double>(), first);
}

}  // namespace
}  // namespace tessel
