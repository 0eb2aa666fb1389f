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
#include "tessel.h"

using namespace tessel;

namespace {

constexpr int64_t kVocab = 512, kWidth = 128, kHeads = 4, kLayers = 2, kMaxLength = 64;
constexpr int64_t kHeadWidth = kWidth / kHeads;
constexpr DType kType = DType::kBF16;  // weights and activations

struct Block {
  Tensor ln1_w, ln1_b, qkv, proj, ln2_w, ln2_b, up, down;
  Tensor q, k, v, gate;  // the swiglu variant: qkv's thirds, and the MLP's gate
};

bool g_swiglu = false;  // the variant (see the top)

struct Model {
  Tensor tokens, positions, ln_w, ln_b;  // tokens: [vocab, width], also the output projection
  std::vector<Block> blocks;
};

Tensor Weight(Shape shape, uint64_t seed, Device d) {
  return randn(shape, seed, kType, d) * (1.0 / std::sqrt(static_cast<double>(shape[0])));
}

Model RandomModel(Device d) {
  Model m;
  m.tokens = randn({kVocab, kWidth}, 1, kType, d) * 0.02;  // GPT-2's initial scale
  m.positions = randn({kMaxLength, kWidth}, 2, kType, d) * 0.01;
  m.ln_w = ones({kWidth}, kType, d);
  m.ln_b = zeros({kWidth}, kType, d);
  for (int64_t l = 0; l < kLayers; ++l) {
    const uint64_t s = 10 * (l + 1);
    m.blocks.push_back({ones({kWidth}, kType, d),
                        zeros({kWidth}, kType, d),
                        Weight({kWidth, 3 * kWidth}, s, d),
                        Weight({kWidth, kWidth}, s + 1, d),
                        ones({kWidth}, kType, d),
                        zeros({kWidth}, kType, d),
                        Weight({kWidth, 4 * kWidth}, s + 2, d),
                        Weight({4 * kWidth, kWidth}, s + 3, d),
                        {},
                        {},
                        {},
                        {}});
  }
  std::vector<Tensor> all = {m.tokens, m.positions};
  for (Block& b : m.blocks) {
    all.insert(all.end(), {b.qkv, b.proj, b.up, b.down});
    if (!g_swiglu) continue;
    b.q = slice(b.qkv, 1, 0, kWidth) + 0.0;  // copies: weights stored on their own
    b.k = slice(b.qkv, 1, kWidth, 2 * kWidth) + 0.0;
    b.v = slice(b.qkv, 1, 2 * kWidth, 3 * kWidth) + 0.0;
    b.gate = Weight({kWidth, 4 * kWidth}, 100 + all.size(), d);
    all.insert(all.end(), {b.q, b.k, b.v, b.gate});
  }
  realize(all);  // the weights once, not in every forward pass
  return m;
}

// [T, width] -> [heads, T, head width]: a view, which the attention kernel reads in place.
Tensor Heads(const Tensor& x, int64_t t) {
  return permute(reshape(x, {t, kHeads, kHeadWidth}), {1, 0, 2});
}

Tensor Attention(const Block& b, const Tensor& x, int64_t t) {
  const std::vector<Tensor> qkv =
      g_swiglu ? std::vector<Tensor>{matmul(x, b.q), matmul(x, b.k), matmul(x, b.v)}
               : split(matmul(x, b.qkv), {kWidth, kWidth, kWidth}, 1);
  const Tensor q = Heads(qkv[0], t), k = Heads(qkv[1], t), v = Heads(qkv[2], t);
  Tensor scores = matmul(q, transpose(k)) * (1.0 / std::sqrt(static_cast<double>(kHeadWidth)));
  const Tensor future = eq(tril(ones({t, t}, DType::kBool, x.device())), false);
  scores = masked_fill(scores, future, -INFINITY);
  const Tensor y = matmul(softmax(scores, -1), v);  // [heads, T, head width]
  return matmul(reshape(permute(y, {1, 0, 2}), {t, kWidth}), b.proj);
}

// Logits [T, vocab] of the token ids [T].
Tensor Forward(const Model& m, const Tensor& ids) {
  const int64_t t = ids.shape()[0];
  Tensor x =
      embedding(m.tokens, ids) + embedding(m.positions, arange(t, DType::kI64, ids.device()));
  for (const Block& b : m.blocks) {
    x = x + Attention(b, layer_norm(x, b.ln1_w, b.ln1_b), t);
    const Tensor h = layer_norm(x, b.ln2_w, b.ln2_b);
    x = x + matmul(g_swiglu ? silu(matmul(h, b.gate)) * matmul(h, b.up) : gelu(matmul(h, b.up)),
                   b.down);
  }
  return matmul(layer_norm(x, m.ln_w, m.ln_b), transpose(m.tokens));  // tied projection
}

// Mean cross-entropy of predicting ids[1:] from the logits of ids[:-1], in f32.
Tensor Loss(const Tensor& logits, const Tensor& ids) {
  const int64_t t = ids.shape()[0];
  const Tensor inputs = cast(slice(logits, 0, 0, t - 1), DType::kF32);
  const Tensor targets = reshape(slice(ids, 0, 1, t), {t - 1, 1});
  return mean(logsumexp(inputs, {1}, true) - gather(inputs, 1, targets));
}

constexpr std::array<int64_t, 8> kPrompt = {17, 301, 42, 7, 256, 99, 3, 480};

struct Generation {
  std::vector<int64_t> tokens, candidates;
  std::vector<float> logits;  // the prompt's
  float loss = 0;
  double ms = 0;
};

// The prompt's loss and top-5 next tokens, then greedy generation of 8 tokens.
Generation Generate(Device device) {
  const auto t0 = std::chrono::steady_clock::now();
  const Model model = RandomModel(device);
  Generation g;
  g.tokens.assign(kPrompt.begin(), kPrompt.end());
  const int64_t prompt = static_cast<int64_t>(kPrompt.size());
  Tensor ids = from_vector(g.tokens, {prompt}, DType::kI64, device);
  const Tensor logits = Forward(model, ids);
  g.loss = Loss(logits, ids).to_vector<float>()[0];
  g.logits = logits.to_vector<float>();
  const auto [top, top_ids] = topk(slice(logits, 0, prompt - 1, prompt), 5, 1);
  g.candidates = top_ids.to_vector<int64_t>();
  for (int step = 0; step < 8; ++step) {  // greedy: the most likely next token, again
    const int64_t t = static_cast<int64_t>(g.tokens.size());
    const Tensor next = argmax(slice(Forward(model, ids), 0, t - 1, t), 1);
    g.tokens.push_back(next.to_vector<int64_t>()[0]);
    ids = from_vector(g.tokens, {t + 1}, DType::kI64, device);
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
    g_swiglu = variant != args.end();
    args.erase(variant, args.end());
    const Device device =
        !args.empty() ? (args[0] == "cuda" ? Device::kCUDA : Device::kCPU) : default_device();
    const Generation g = Generate(device);
    std::cout << absl::StrFormat(
        "tessel language-model demo on %s: %d layers, width %d, %d heads, vocabulary %d%s\n",
        DeviceName(device), kLayers, kWidth, kHeads, kVocab,
        g_swiglu ? "; q, k, v apart and a SwiGLU MLP" : "");
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
      const Generation cpu = Generate(Device::kCPU);
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
