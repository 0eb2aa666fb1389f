// Which elements of a perturbed replay's values are fragile (sensitivity.h's note, "taint"):
// the rules per operation, given its operands' values with and without noise.
#ifndef TESSEL_TOOLS_FUZZ_TAINT_H_
#define TESSEL_TOOLS_FUZZ_TAINT_H_

#include <vector>

#include "tessel.h"
#include "tools/fuzz/program.h"

namespace tessel::fuzz {

// A value of the perturbed replay.
struct Traced {
  Tensor value;       // with noise
  Tensor reference;   // computed without noise (the CPU's value)
  Tensor taint;       // kBool of value's shape, or empty: nothing tainted
  bool exact = true;  // computed bit-identically on every device (before noise)
  DType precision = DType::kI32;
};

// The coarser of two precisions: bf16 > f16 > f32 > exact (kI32 stands for exact; f64 counts
// as f32: the noise model works in f32).
DType Coarser(DType a, DType b);

// f32 values of `t`, and an f32 scalar: the replays' arithmetic.
Tensor F32(const Tensor& t);
Tensor Scalar(double v);

// The elements of `out`, computed by `line` from `in`, that are fragile (kBool), or empty
// where none is.
Tensor Taint(const GraphLine& line, const std::vector<Traced>& in, const Traced& out);

// `t`'s taint, false everywhere where it has none.
Tensor TaintOrFalse(const Traced& t);

}  // namespace tessel::fuzz

#endif  // TESSEL_TOOLS_FUZZ_TAINT_H_
