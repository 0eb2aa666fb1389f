// A sum over a row of where(eq(arange, t), x, e), t and e the same along the row (cross-
// entropy's pick of the target's logit, as users write it without gather): at most one term
// is x, at position t, and the others are e. Streamed lane by lane it costs a compare, a select
// and an add an element (3 of about 12 in cross-entropy over bf16 classes); instead one thread
// reads x at t and adds the others as (count) * e.
#ifndef TESSEL_CODEGEN_ONE_HOT_SUM_H_
#define TESSEL_CODEGEN_ONE_HOT_SUM_H_

#include <optional>

#include "codegen/code_writer.h"
#include "codegen/kernel_source.h"
#include "codegen/row_common.h"

namespace tessel::codegen {

struct OneHotSum {
  const Node* target;  // t: an integer, the same along the row
  const Node* picked;  // x: the term at position t
  const Node* other;   // e: every other term, the same along the row
};

// The one-hot form of accumulator `a` over the trailing axis of `l`: a floating sum (or mean)
// of where(eq(arange, t), x, e), or of where(ne(arange, t), e, x), with arange (seen through
// reshapes that add leading 1s) running along the reduced axis; the where and the comparison
// computed in kernel `ks` (not read from a buffer, as where the plan runs every op alone).
std::optional<OneHotSum> MatchOneHotSum(const Accumulator& a, const RowLayout& l,
                                        const KernelSource& ks);

// Into `a` (at its identity) of thread 0 of the block whose part of row `row` is
// [begin, end): the terms of that part, as (end - begin - picked) * e, then x at t where t
// lies in it. With e = 0 the result is the streamed sum's, bit for bit (+0 for -0 included);
// otherwise (count) * e rounds once where the stream rounded count times.
void EmitOneHotSum(CodeWriter& w, const KernelSource& ks, const RowLayout& l, const Accumulator& a,
                   const OneHotSum& m);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_ONE_HOT_SUM_H_
