// Attention as users write it: o = matmul(softmax(f(matmul(q, k^T))), v), where f is any
// elementwise work on the scores (a scale, an additive bias, a mask by `where`), the softmax
// written with `softmax` or by hand (exp(x - max(x)) / sum(exp(x - max(x))) over the keys'
// axis), with or without casts to f32 and back. Such a chain can run as one kernel that never
// writes the [.., S_q, S_k] scores (FlashAttention): this file finds it in a program, or says
// why a near miss is not one. Pure: the planner's state in, a match out.
#ifndef TESSEL_FUSION_ATTENTION_H_
#define TESSEL_FUSION_ATTENTION_H_

#include <optional>
#include <string>
#include <vector>

#include "fusion/planner_state.h"

namespace tessel::fusion_internal {

struct AttentionMatch {
  const Node* scores = nullptr;  // matmul(q, k^T): [.., S_q, S_k]
  const Node* output = nullptr;  // matmul(p, v): [.., S_q, D_v]
  const Node* q = nullptr;       // the operands as the two matmuls read them
  const Node* k_t = nullptr;
  const Node* v = nullptr;
  const Node* logits = nullptr;  // the softmax's input: f(scores)
  // f's nodes, producers first, and the tensors they read besides the scores (a bias, a
  // mask, scalars): the kernel evaluates them per score tile.
  std::vector<const Node*> score_ops;
  std::vector<const Node*> score_inputs;
  const Node* max = nullptr;    // max(logits) over the keys, kept
  const Node* sum = nullptr;    // sum(exp(logits - max)) over the keys, kept
  const Node* probs = nullptr;  // exp(..) / sum, as the second matmul reads it (maybe cast)
  // Every node the attention kernel computes, producers first: scores .. output.
  std::vector<const Node*> members;
  // Views below q, k^T and v that the kernel reads through where only attention kernels
  // read them (fusion/writes.cc), and views it cannot read through (written).
  std::vector<const Node*> views, view_stops;
};

// Whether `output` (a matmul) ends an attention chain whose intermediate values nothing else
// reads. If not, and the matmul reads a softmax-like value, `why_not` says what differs (for
// explain()); it stays empty for matmuls that are plainly not attention.
std::optional<AttentionMatch> MatchAttention(const PlannerState& state, const Node* output,
                                             std::string* why_not);

}  // namespace tessel::fusion_internal

#endif  // TESSEL_FUSION_ATTENTION_H_
