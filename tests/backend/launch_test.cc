// Launches the real driver refuses, on the driver that runs no kernels (tools/fake_cuda),
// which refuses them too: grids and blocks past the device's limits, and dynamic shared
// memory the function did not reserve. Values computed here are meaningless; only that each
// program realizes is checked.
#include "core/backend.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

class LaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GetBackend(Device::kCUDA).ok()) GTEST_SKIP() << "the fake driver did not load";
  }
};

// A kernel's static shared memory counts against the same default 48 KB as its dynamic
// shared memory: a bf16 softmax over a leading axis of 300 holds its columns in a 48 KB tile
// beside 2 KB of static slots, and failed to launch while only launches of more than 48 KB
// reserved their bytes (fuzz seed 76056259 with --small_tiles).
TEST_F(LaunchTest, SharedMemoryBesideStaticSlotsIsReserved) {
  const Tensor x = randn({300, 16896}, 1, DType::kBF16, Device::kCUDA);
  realize({x});  // read from memory, as the tile copies it (randn would fuse into the softmax)
  EXPECT_NO_THROW(realize({softmax(x, 0)}));
}

// Kernels of each kind: pointwise, row and column normalizations, reductions, a GEMM with an
// epilogue, attention and a scan, at sizes that take shared memory.
TEST_F(LaunchTest, EveryKindOfKernelLaunches) {
  const Tensor x = randn({512, 4096}, 2, DType::kBF16, Device::kCUDA);
  const Tensor w = randn({4096, 1024}, 3, DType::kBF16, Device::kCUDA);
  const Tensor q = randn({2, 4, 256, 128}, 4, DType::kBF16, Device::kCUDA);
  realize({x, w, q});
  EXPECT_NO_THROW(realize({exp(x) + 1.0, softmax(x, 1), layer_norm(x, Tensor(), Tensor()),
                           softmax(x, 0), sum(x, {0}), relu(matmul(x, w)),
                           matmul(softmax(matmul(q, transpose(q)) * 0.125, -1), q), cumsum(x, 1)}));
}

// An empty tensor may have any extent up to the limit (2^60): the same program at extents 3
// and 2^60 once hung choosing the kernel's extent arguments (an extent of 2^62, refused now).
TEST_F(LaunchTest, EmptyTensorsOfTheLongestExtent) {
  for (int64_t n : {int64_t{3}, kMaxElements}) {
    const Tensor x = ones({n, 0}, DType::kF32, Device::kCUDA) * 5.0;
    EXPECT_NO_THROW(realize({x}));
    EXPECT_EQ(x.numel(), 0);
  }
}

// A chain of thousands of fused operations: each kind of kernel that computes one inline
// (pointwise, a reduction's input, a row group's members, a GEMM's epilogue) once overflowed
// the code generator's stack at about 3,000 (the API audit, 2026-11-28). Kernels now stop at
// FusionOptions::max_inline_depth; cheap ops keep NVRTC's time short.
TEST_F(LaunchTest, ChainsOfThousandsOfOperations) {
  const Tensor x = randn({64, 256}, 5, DType::kF32, Device::kCUDA);
  const Tensor w = randn({256, 128}, 6, DType::kF32, Device::kCUDA);
  realize({x, w});
  auto chain = [](Tensor t) {
    for (int i = 0; i < 3000; ++i) t = t * 1.0001 + 0.5;
    return t;
  };
  EXPECT_NO_THROW(realize({chain(x)}));
  EXPECT_NO_THROW(realize({sum(chain(x), {1})}));
  EXPECT_NO_THROW(realize({chain(sum(x, {1}, true))}));
  EXPECT_NO_THROW(realize({chain(softmax(x, 1))}));
  EXPECT_NO_THROW(realize({chain(matmul(x, w))}));
}

}  // namespace
}  // namespace tessel
