// Normalization terms: exp(y - m) where m is the max of y over some axes, kept as y's rank
// (softmax, log_softmax, logsumexp). Their exponents are at most 0 and their values are
// measured against a sum of at least 1, so they run as one multiply and one ex2.approx
// (tessel_exp_term in the prelude) instead of expf's ten instructions, the form streamed
// rows' online sums take (tessel_exp_shifted): the same program rounds alike whether its rows
// are staged, streamed or held as columns.
#ifndef TESSEL_CODEGEN_NORMALIZATION_TERM_H_
#define TESSEL_CODEGEN_NORMALIZATION_TERM_H_

#include "core/node.h"

namespace tessel::codegen {

// Whether `exp` (a kExp computed in f32: f32 or a 16-bit type) is such a term: its input
// y - m with m = max(y) over some axes, keepdim, or where(isfinite(m), m, c) of it.
bool IsNormalizationTerm(const Node& exp);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_NORMALIZATION_TERM_H_
