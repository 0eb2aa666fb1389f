// A small decoder-only language model with random weights, written as plain tensor code in
// bf16, as such models run on tensor cores: token and position embeddings, causal
// self-attention (tril + masked_fill + softmax, one flash-attention kernel on the GPU), a GELU
// MLP, layer norms, a tied output projection, the cross-entropy loss of a prompt (in f32), and
// greedy generation of a few tokens (with the top-5 candidates of the first step). Prints the
// tokens, the loss and the time. The `swiglu` variant writes the q, k and v projections as
// three matmuls of one x (one kernel of sibling GEMMs on sm_90a; the same weights, so the
// same logits) and the MLP as SwiGLU, silu(x wg) * (x wu) (one dual GEMM there).
//
//   bazel run //examples:lm                   # on the GPU when there is one, else the CPU
//   bazel run //examples:lm -- cpu            # on the CPU backend
//   bazel run //examples:lm -- cuda           # on the GPU
//   bazel run //examples:lm -- cuda swiglu    # the variant
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "examples/lm_model.h"
#include "tessel.h"

using namespace tessel;
using namespace tessel::lm;

namespace {

constexpr std::array<int64_t, 8> kPrompt = {17, 301, 42, 7, 256, 99, 3, 480};

struct Generation {
  std::vector<int64_t> tokens, candidates;
  std::vector<float> logits;  // the prompt's
  float loss = 0;
  double ms = 0;
};

// The prompt's loss and top-5 next tokens, then greedy generation of 8 tokens.
Generation Generate(Device device, bool swiglu) {
  const auto t0 = std::chrono::steady_clock::now();
  const Model model = RandomModel(device, swiglu);
  Generation g;
  g.tokens.assign(kPrompt.begin(), kPrompt.end());
  const int64_t prompt = static_cast<int64_t>(kPrompt.size());
  const Tensor ids = from_vector(g.tokens, {prompt}, DType::kI64, device);
  const Tensor logits = Forward(model, ids);
  g.loss = Loss(logits, ids).to_vector<float>()[0];
  g.logits = logits.to_vector<float>();
  const auto [top, top_ids] = topk(slice(logits, 0, prompt - 1, prompt), 5, 1);
  g.candidates = top_ids.to_vector<int64_t>();
  // Greedy: the most likely next token, again, each step the same padded program (one plan
  // for all lengths: lm_model.h's NextToken).
  for (int step = 0; step < 8; ++step) {
    g.tokens.push_back(NextToken(model, g.tokens, device, /*padded=*/true));
  }
  g.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return g;
}

}  // namespace

// The device: the GPU when there is one (TESSEL_DEVICE=cpu|cuda overrides it), or argv[1];
// `swiglu` (anywhere) picks the variant.
int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    const auto variant = std::remove(args.begin(), args.end(), "swiglu");
    const bool swiglu = variant != args.end();
    args.erase(variant, args.end());
    const Device device =
        !args.empty() ? (args[0] == "cuda" ? Device::kCUDA : Device::kCPU) : default_device();
    const Generation g = Generate(device, swiglu);
    std::cout << absl::StrFormat(
        "tessel language-model demo on %s: %d layers, width %d, %d heads, vocabulary %d%s\n",
        DeviceName(device), kLayers, kWidth, kHeads, kVocab,
        swiglu ? "; q, k, v apart and a SwiGLU MLP" : "");
    std::cout << "prompt:    "
              << absl::StrJoin(g.tokens.begin(), g.tokens.begin() + kPrompt.size(), " ")
              << "\nloss:      " << absl::StrFormat("%.4f", g.loss)
              << " (random weights: about log(vocabulary) = "
              << absl::StrFormat("%.2f", std::log(static_cast<double>(kVocab))) << ")"
              << "\ntop 5:     " << absl::StrJoin(g.candidates, " ") << "\ngenerated: "
              << absl::StrJoin(g.tokens.begin() + kPrompt.size(), g.tokens.end(), " ")
              << absl::StrFormat("\ntime:      %.1f ms%s\n", g.ms,
                                 device == Device::kCUDA
                                     ? " (a process's first run compiles its kernels, or reads "
                                       "them from the disk cache)"
                                     : "");
    if (device == Device::kCUDA) {  // the same program on the CPU backend, as a check
      // The backends round bf16 values the same way op by op, but sum in other orders: the
      // prompt's logits agree within a few bf16 steps of their scale, and a near tie between
      // two candidates may go either way (then the generated tokens part there).
      const Generation cpu = Generate(Device::kCPU, swiglu);
      float error = 0, scale = 0;
      for (size_t i = 0; i < cpu.logits.size(); ++i) {
        error = std::max(error, std::abs(g.logits[i] - cpu.logits[i]));
        scale = std::max(scale, std::abs(cpu.logits[i]));
      }
      const bool close = error <= scale / 32;
      std::cout << absl::StrFormat(
          "cpu check: logits %s (largest difference %.4f of %.3f); %s; loss %.4f on the CPU\n",
          close ? "agree" : "DIFFER", error, scale,
          cpu.tokens == g.tokens && cpu.candidates == g.candidates ? "same tokens and top 5"
                                                                   : "tokens part at a near tie",
          cpu.loss);
      if (!close) return 1;
    }
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
