// Launches the real driver refuses, on the driver that runs no kernels (tools/fake_cuda),
// which refuses them too: grids and blocks past the device's limits, and dynamic shared
// memory the function did not reserve. Values computed here are meaningless; only that each
// program realizes is checked.
#include "absl/strings/match.h"
#include "core/backend.h"
#include "core/stats.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
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

// A training step over changing batch sizes (the backward pass reads the batch through
// transposed views): each new size of a bucket plans once and loads only the kernels made for
// it alone (those explain() marks "rows:"); a size seen before is a plan-cache hit.
TEST_F(LaunchTest, PartlyDynamicPlansLoadOnlyTheirSpecializedKernels) {
  const Tensor w1 = randn({64, 96}, 1, DType::kBF16, Device::kCUDA);
  const Tensor w2 = randn({96, 32}, 2, DType::kBF16, Device::kCUDA);
  realize({w1, w2});
  auto step = [&](int64_t b) {
    const Tensor x = randn({b, 64}, 3, DType::kBF16, Device::kCUDA);
    const Tensor t = randn({b, 32}, 4, DType::kBF16, Device::kCUDA);
    realize({x, t});
    const Tensor h = tanh(matmul(x, w1)), dy = matmul(h, w2) - t;
    const Tensor dh = matmul(dy, transpose(w2)) * (1.0 - h * h);
    return std::vector<Tensor>{mean(dy * dy), w1 - 0.1 * matmul(transpose(x), dh), sum(dh, {0}),
                               w2 - 0.1 * matmul(transpose(h), dy)};
  };
  for (int64_t b : {17, 40, 41}) realize(step(b));
  int specialized_at_42 = -1;  // set once batch 42 has run
  for (int64_t b : {42, 50, 42}) {
    SCOPED_TRACE(::testing::Message() << "batch " << b);
    const bool seen = b == 42 && specialized_at_42 >= 0;
    const std::vector<Tensor> out = step(b);
    const std::string text = explain(out);
    int specialized = 0;
    for (size_t at = text.find("\n  rows:"); at != std::string::npos;
         at = text.find("\n  rows:", at + 1)) {
      ++specialized;
    }
    // sm_80: the weight gradients' GEMMs (K = B); sm_90a: none, the bucket's plan serves it.
    EXPECT_EQ(specialized, runtime::DeviceTarget().major == 9 ? 0 : 2) << text;
    EXPECT_TRUE(absl::StrContains(text, "serve batches 32 to 63")) << text;
    const int64_t plans = GetStats().plans_built, modules = GetStats().modules_loaded;
    realize(out);
    EXPECT_EQ(GetStats().plans_built - plans, seen || specialized == 0 ? 0 : 1);
    EXPECT_EQ(GetStats().modules_loaded - modules, seen ? 0 : specialized);
    if (b == 42) specialized_at_42 = specialized;
  }
}

}  // namespace
}  // namespace tessel
