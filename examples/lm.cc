// A small decoder-only language model with random weights, written as plain tensor code:
// token and position embeddings, causal self-attention (tril + masked_fill + softmax), a GELU
// MLP, layer norms, a tied output projection, the cross-entropy loss of a prompt, and greedy
// generation of a few tokens (with the top-5 candidates of the first step). Prints the tokens,
// the loss and the time.
//
//   bazel run //examples:lm                   # on the CPU backend
//   bazel run //examples:lm -- cuda           # on the GPU
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

struct Block {
  Tensor ln1_w, ln1_b, qkv, proj, ln2_w, ln2_b, up, down;
};

struct Model {
  Tensor tokens, positions, ln_w, ln_b;  // tokens: [vocab, width], also the output projection
  std::vector<Block> blocks;
};

Tensor Weight(Shape shape, uint64_t seed, Device d) {
  return randn(shape, seed, DType::kF32, d) * (1.0 / std::sqrt(static_cast<double>(shape[0])));
}

Model RandomModel(Device d) {
  Model m;
  m.tokens = randn({kVocab, kWidth}, 1, DType::kF32, d) * 0.02;  // GPT-2's initial scale
  m.positions = randn({kMaxLength, kWidth}, 2, DType::kF32, d) * 0.01;
  m.ln_w = ones({kWidth}, DType::kF32, d);
  m.ln_b = zeros({kWidth}, DType::kF32, d);
  for (int64_t l = 0; l < kLayers; ++l) {
    const uint64_t s = 10 * (l + 1);
    m.blocks.push_back({ones({kWidth}, DType::kF32, d), zeros({kWidth}, DType::kF32, d),
                        Weight({kWidth, 3 * kWidth}, s, d), Weight({kWidth, kWidth}, s + 1, d),
                        ones({kWidth}, DType::kF32, d), zeros({kWidth}, DType::kF32, d),
                        Weight({kWidth, 4 * kWidth}, s + 2, d),
                        Weight({4 * kWidth, kWidth}, s + 3, d)});
  }
  std::vector<Tensor> all = {m.tokens, m.positions};
  for (const Block& b : m.blocks) all.insert(all.end(), {b.qkv, b.proj, b.up, b.down});
  realize(all);  // the weights once, not in every forward pass
  return m;
}

// [T, width] -> [heads, T, head width]
Tensor Heads(const Tensor& x, int64_t t) {
  return permute(reshape(x, {t, kHeads, kHeadWidth}), {1, 0, 2});
}

Tensor Attention(const Block& b, const Tensor& x, int64_t t) {
  const std::vector<Tensor> qkv = split(matmul(x, b.qkv), {kWidth, kWidth, kWidth}, 1);
  const Tensor q = Heads(qkv[0], t), k = Heads(qkv[1], t), v = Heads(qkv[2], t);
  Tensor scores = matmul(q, transpose(k)) * (1.0 / std::sqrt(static_cast<double>(kHeadWidth)));
  const Tensor future = eq(tril(ones({t, t}, DType::kF32, x.device())), 0.0);
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
    x = x + matmul(gelu(matmul(layer_norm(x, b.ln2_w, b.ln2_b), b.up)), b.down);
  }
  return matmul(layer_norm(x, m.ln_w, m.ln_b), transpose(m.tokens));  // tied projection
}

// Mean cross-entropy of predicting ids[1:] from the logits of ids[:-1].
Tensor Loss(const Tensor& logits, const Tensor& ids) {
  const int64_t t = ids.shape()[0];
  const Tensor inputs = slice(logits, 0, 0, t - 1);
  const Tensor targets = reshape(slice(ids, 0, 1, t), {t - 1, 1});
  return mean(logsumexp(inputs, {1}, true) - gather(inputs, 1, targets));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string where = argc > 1 ? argv[1] : "cpu";
  try {
    const Device device = where == "cuda" ? Device::kCUDA : Device::kCPU;
    const auto t0 = std::chrono::steady_clock::now();
    const Model model = RandomModel(device);
    std::vector<int64_t> tokens = {17, 301, 42, 7, 256, 99, 3, 480};
    const int64_t prompt = static_cast<int64_t>(tokens.size());
    Tensor ids = from_vector(tokens, {prompt}, DType::kI64, device);
    const Tensor logits = Forward(model, ids);
    const float loss = Loss(logits, ids).to_vector<float>()[0];
    const auto [top, top_ids] = topk(slice(logits, 0, prompt - 1, prompt), 5, 1);
    const std::vector<int64_t> candidates = top_ids.to_vector<int64_t>();
    for (int step = 0; step < 8; ++step) {  // greedy: the most likely next token, again
      const int64_t t = static_cast<int64_t>(tokens.size());
      const Tensor next = argmax(slice(Forward(model, ids), 0, t - 1, t), 1);
      tokens.push_back(next.to_vector<int64_t>()[0]);
      ids = from_vector(tokens, {t + 1}, DType::kI64, device);
    }
    const auto t1 = std::chrono::steady_clock::now();
    std::cout << absl::StrFormat(
        "tessel language-model demo on %s: %d layers, width %d, %d heads, vocabulary %d\n",
        DeviceName(device), kLayers, kWidth, kHeads, kVocab);
    std::cout << "prompt:    " << absl::StrJoin(tokens.begin(), tokens.begin() + prompt, " ")
              << "\nloss:      " << absl::StrFormat("%.4f", loss)
              << " (random weights: about log(vocabulary) = "
              << absl::StrFormat("%.2f", std::log(static_cast<double>(kVocab))) << ")"
              << "\ntop 5:     " << absl::StrJoin(candidates, " ")
              << "\ngenerated: " << absl::StrJoin(tokens.begin() + prompt, tokens.end(), " ")
              << absl::StrFormat("\ntime:      %.1f ms\n",
                                 std::chrono::duration<double, std::milli>(t1 - t0).count());
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
