// The main demo: a two-layer MLP forward pass plus softmax over a batch, on the default
// device (TESSEL_DEVICE=cpu|cuda overrides it). Prints the recorded graph, a checksum and
// the time to record and to compute.
//
//   bazel run //examples:mlp              # batch 512
//   bazel run //examples:mlp -- 2048      # another batch size
#include <chrono>
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_format.h"
#include "tessel.h"

using namespace tessel;

int main(int argc, char** argv) {
  const int64_t batch = argc > 1 ? std::atoll(argv[1]) : 512;
  const int64_t in = 1024, hidden = 2048, classes = 512;
  try {
    const Device device = default_device();
    const auto t0 = std::chrono::steady_clock::now();
    Tensor x = randn({batch, in}, /*seed=*/1, DType::kF32, device);
    Tensor w1 = randn({in, hidden}, 2, DType::kF32, device) * (1.0 / std::sqrt(in));
    Tensor b1 = zeros({hidden}, DType::kF32, device);
    Tensor w2 = randn({hidden, classes}, 3, DType::kF32, device) * (1.0 / std::sqrt(hidden));
    Tensor b2 = full({classes}, 0.01, DType::kF32, device);
    Tensor probs = softmax(linear(gelu(linear(x, w1, b1)), w2, b2));
    // A checksum that depends on every probability and its position.
    Tensor checksum = sum(probs * arange(classes, DType::kF32, device));
    const auto t1 = std::chrono::steady_clock::now();

    std::cout << "tessel MLP demo on " << DeviceName(device) << ": batch " << batch << ", " << in
              << " -> " << hidden << " (gelu) -> " << classes << " (softmax)\n\n"
              << "Recorded graph:\n"
              << PrintGraph({probs, checksum}) << "\n";
    realize({probs, checksum});
    const auto t2 = std::chrono::steady_clock::now();

    const std::vector<float> p = probs.to_vector<float>();
    double row_sum = 0;
    for (int64_t c = 0; c < classes; ++c) row_sum += p[c];
    auto ms = [](auto a, auto b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    std::cout << absl::StrFormat(
        "checksum sum(probs * class index) = %.6f (expect about %.0f)\n"
        "row 0 sums to %.6f\n"
        "record: %.3f ms, realize: %.1f ms\n",
        checksum.to_vector<float>()[0], batch * (classes - 1) / 2.0, row_sum, ms(t0, t1),
        ms(t1, t2));
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
