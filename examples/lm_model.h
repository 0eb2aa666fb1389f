// The small decoder-only language model of examples/lm.cc (random weights, bf16) as a
// library, so that tests can run its forward pass: token and position embeddings, causal
// self-attention, a GELU or SwiGLU MLP, layer norms, a tied output projection.
#ifndef TESSEL_EXAMPLES_LM_MODEL_H_
#define TESSEL_EXAMPLES_LM_MODEL_H_

#include <cstdint>
#include <vector>

#include "tessel.h"

namespace tessel::lm {

inline constexpr int64_t kVocab = 512, kWidth = 128, kHeads = 4, kLayers = 2, kMaxLength = 64;
inline constexpr int64_t kHeadWidth = kWidth / kHeads;
inline constexpr DType kType = DType::kBF16;  // weights and activations

struct Block {
  Tensor ln1_w, ln1_b, qkv, proj, ln2_w, ln2_b, up, down;
  Tensor q, k, v, gate;  // the swiglu variant: qkv's thirds, and the MLP's gate
};

struct Model {
  Tensor tokens, positions, ln_w, ln_b;  // tokens: [vocab, width], also the output projection
  std::vector<Block> blocks;
  // The variant: q, k and v as three matmuls of one x (the same weights, so the same logits)
  // and a SwiGLU MLP, silu(x wg) * (x wu).
  bool swiglu = false;
};

// Random weights on `d`, realized.
Model RandomModel(Device d, bool swiglu);

// Logits [T, vocab] of the token ids [T] (T at most kMaxLength).
Tensor Forward(const Model& m, const Tensor& ids);

// The greedy next token after `tokens` (1 to kMaxLength of them). Padded: the forward pass
// at kMaxLength, the ids padded with token 0 and the logits' row t - 1 picked by an index,
// so that every length runs the same program (one plan, no compile after the first step;
// the causal mask keeps the padding out of the real positions' rows). Else the forward pass
// at the length itself: a new length plans and compiles anew (until
// docs/plans/dynamic_sequence_lengths.md is done), but computes t rows, not kMaxLength.
int64_t NextToken(const Model& m, const std::vector<int64_t>& tokens, Device d, bool padded);

// Mean cross-entropy of predicting ids[1:] from the logits of ids[:-1], in f32.
Tensor Loss(const Tensor& logits, const Tensor& ids);

}  // namespace tessel::lm

#endif  // TESSEL_EXAMPLES_LM_MODEL_H_
