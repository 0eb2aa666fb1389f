// Key bands an attention kernel may skip: where f's graph sets the logits to -inf for every
// key past (or before) a diagonal, as causal and sliding-window masks written with triu, tril,
// arange comparisons and masked_fill/where do, or past a key position (a cache's valid
// length: `arange(S_k) < length`), whole key tiles hold only -inf and add nothing to the
// softmax. The diagonal and the fill are the kernel's scalars (values are arguments),
// so a band holds under runtime conditions the generated code checks.
#ifndef TESSEL_CODEGEN_ATTENTION_BAND_H_
#define TESSEL_CODEGEN_ATTENTION_BAND_H_

#include <vector>

#include "core/node.h"

namespace tessel::codegen {

struct KeyBand {
  // Upper: keys at or past row + diagonal + adjust are -inf (a causal mask). Lower: keys at
  // or before row + diagonal + adjust are. Without `per_row`, the same keys for every row
  // (diagonal + adjust: a mask of key positions alone, as a cache's valid length makes).
  bool upper = true;
  bool per_row = true;
  const Node* diagonal = nullptr;  // an integer `full` (a scalar argument)
  int64_t adjust = 0;
  const Node* fill = nullptr;  // the masked value (a `full`): the band holds where it is -inf
  // Conditions on the kernel's scalars under which the mask is the comparison itself
  // (triu/tril's ones and zeros, and what a mask compares them with): `a` == `b`, or `a` !=
  // `b` where !equal; a null `b` is 0 (false).
  struct Condition {
    const Node* a = nullptr;
    const Node* b = nullptr;
    bool equal = true;
  };
  std::vector<Condition> conditions;
  // The `where` that applies the mask, and its input that holds where the mask does not
  // (inside the band every logit is that input).
  const Node* where = nullptr;
  const Node* kept = nullptr;
};

// The bands of the logits `logits` (the softmax's input) over scores of shape [.., sq, sk],
// outermost `where` first.
std::vector<KeyBand> FindKeyBands(const Node* logits, int64_t sq, int64_t sk);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_ATTENTION_BAND_H_
