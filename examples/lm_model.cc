#include "examples/lm_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tessel::lm {
namespace {

Tensor Weight(Shape shape, uint64_t seed, Device d) {
  return randn(shape, seed, kType, d) * (1.0 / std::sqrt(static_cast<double>(shape[0])));
}

// [T, width] -> [heads, T, head width]: a view, which the attention kernel reads in place.
Tensor Heads(const Tensor& x, int64_t t) {
  return permute(reshape(x, {t, kHeads, kHeadWidth}), {1, 0, 2});
}

Tensor Attention(const Block& b, bool apart, const Tensor& x, int64_t t) {
  const std::vector<Tensor> qkv =
      apart ? std::vector<Tensor>{matmul(x, b.q), matmul(x, b.k), matmul(x, b.v)}
            : split(matmul(x, b.qkv), {kWidth, kWidth, kWidth}, 1);
  const Tensor q = Heads(qkv[0], t), k = Heads(qkv[1], t), v = Heads(qkv[2], t);
  Tensor scores = matmul(q, transpose(k)) * (1.0 / std::sqrt(static_cast<double>(kHeadWidth)));
  const Tensor future = eq(tril(ones({t, t}, DType::kBool, x.device())), false);
  scores = masked_fill(scores, future, -INFINITY);
  const Tensor y = matmul(softmax(scores, -1), v);  // [heads, T, head width]
  return matmul(reshape(permute(y, {1, 0, 2}), {t, kWidth}), b.proj);
}

}  // namespace

Model RandomModel(Device d, bool swiglu) {
  Model m;
  m.swiglu = swiglu;
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
    if (!swiglu) continue;
    b.q = slice(b.qkv, 1, 0, kWidth) + 0.0;  // copies: weights stored on their own
    b.k = slice(b.qkv, 1, kWidth, 2 * kWidth) + 0.0;
    b.v = slice(b.qkv, 1, 2 * kWidth, 3 * kWidth) + 0.0;
    b.gate = Weight({kWidth, 4 * kWidth}, 100 + all.size(), d);
    all.insert(all.end(), {b.q, b.k, b.v, b.gate});
  }
  realize(all);  // the weights once, not in every forward pass
  return m;
}

Tensor Forward(const Model& m, const Tensor& ids) {
  const int64_t t = ids.shape()[0];
  Tensor x =
      embedding(m.tokens, ids) + embedding(m.positions, arange(t, DType::kI64, ids.device()));
  for (const Block& b : m.blocks) {
    x = x + Attention(b, m.swiglu, layer_norm(x, b.ln1_w, b.ln1_b), t);
    const Tensor h = layer_norm(x, b.ln2_w, b.ln2_b);
    x = x + matmul(m.swiglu ? silu(matmul(h, b.gate)) * matmul(h, b.up) : gelu(matmul(h, b.up)),
                   b.down);
  }
  return matmul(layer_norm(x, m.ln_w, m.ln_b), transpose(m.tokens));  // tied projection
}

int64_t NextToken(const Model& m, const std::vector<int64_t>& tokens, Device d, bool padded) {
  const int64_t t = static_cast<int64_t>(tokens.size());
  if (!padded) {
    const Tensor ids = from_vector(tokens, {t}, DType::kI64, d);
    return argmax(slice(Forward(m, ids), 0, t - 1, t), 1).to_vector<int64_t>()[0];
  }
  // The length is data here, not shape: the ids at kMaxLength (the tail token 0) and the
  // row to read as an index.
  std::vector<int64_t> ids(kMaxLength, 0);
  std::copy(tokens.begin(), tokens.end(), ids.begin());
  const Tensor row = from_vector(std::vector<int64_t>{t - 1}, {1}, DType::kI64, d);
  const Tensor logits = Forward(m, from_vector(ids, {kMaxLength}, DType::kI64, d));
  return argmax(index_select(logits, 0, row), 1).to_vector<int64_t>()[0];
}

Tensor Loss(const Tensor& logits, const Tensor& ids) {
  const int64_t t = ids.shape()[0];
  const Tensor inputs = cast(slice(logits, 0, 0, t - 1), DType::kF32);
  const Tensor targets = reshape(slice(ids, 0, 1, t), {t - 1, 1});
  return mean(logsumexp(inputs, {1}, true) - gather(inputs, 1, targets));
}

}  // namespace tessel::lm
