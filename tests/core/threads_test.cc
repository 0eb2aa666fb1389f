// Threads that record and realize independent graphs at the same time (see the note in
// core/realize.h). Runs on the default device: the CPU in CI (also under --config=tsan), the
// GPU in the GPU bundle. Each thread's results are checked against the CPU backend run alone
// beforehand.
#include <thread>

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 6;

// A thread's work for one round: a GEMM with an epilogue, a normalization, reductions and a
// view, over inputs of its own shape (so that threads plan different kernels), sharing a
// weight with every other thread and constants that hash-cons to the same nodes.
std::vector<Tensor> Work(int thread, int round, const Tensor& shared_w, Device device) {
  const int64_t m = 16 + 8 * thread + round, k = shared_w.shape()[0];
  std::vector<float> xs(m * k);
  for (size_t i = 0; i < xs.size(); ++i) {
    xs[i] = static_cast<float>((i * 7 + thread * 3 + round) % 13) * 0.1f - 0.6f;
  }
  const Tensor x = from_vector(xs, {m, k}, DType::kF32, device);
  const Tensor w = device == shared_w.device() ? shared_w
                                               : from_vector(shared_w.to_vector<float>(),
                                                             shared_w.shape(), DType::kF32, device);
  const Tensor h = gelu(matmul(x, w) * 0.5 + 1.0);
  const Tensor y = softmax(h, thread % 2 == 0 ? -1 : 0);
  return {y, sum(h, {1}), max(transpose(h), {0}, true), layer_norm(h, Tensor(), Tensor())};
}

TEST(ThreadsTest, ThreadsRecordAndRealizeIndependentGraphs) {
  const Device device = default_device();
  std::vector<float> ws(32 * 24);
  for (size_t i = 0; i < ws.size(); ++i) ws[i] = static_cast<float>(i % 11) * 0.05f - 0.25f;
  const Tensor w = from_vector(ws, {32, 24}, DType::kF32, device);
  // The CPU reference, computed alone.
  std::vector<std::vector<std::vector<float>>> expected(kThreads * kRounds);
  for (int t = 0; t < kThreads; ++t) {
    for (int r = 0; r < kRounds; ++r) {
      for (const Tensor& out : Work(t, r, w, Device::kCPU)) {
        expected[t * kRounds + r].push_back(out.to_vector<float>());
      }
    }
  }
  std::vector<std::vector<std::vector<float>>> got(kThreads * kRounds);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        std::vector<Tensor> outs = Work(t, r, w, device);
        if (r % 2 == 0) realize(outs);  // one realize for all, or one per to_vector
        for (const Tensor& out : outs) got[t * kRounds + r].push_back(out.to_vector<float>());
        // Everyone also reads one value that several threads realize: the same node.
        got[t * kRounds + r].push_back((w * 2.0).to_vector<float>());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kThreads * kRounds; ++i) {
    ASSERT_EQ(got[i].size(), expected[i].size() + 1);
    for (size_t o = 0; o < expected[i].size(); ++o) {
      testing::ExpectClose(
          got[i][o], std::vector<double>(expected[i][o].begin(), expected[i][o].end()), 1e-4, 1e-5);
    }
    EXPECT_EQ(got[i].back()[5], 2 * ws[5]);
  }
}

}  // namespace
}  // namespace tessel
