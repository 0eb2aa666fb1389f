// Which output elements a correct GPU could legitimately compute differently from the CPU.
//
// [ Note -- tolerances of the differential check ]
// The two backends round the same way node by node, but not identically: GPU math functions
// are a few ulps off the CPU's, sums and matmuls add in another order, and a 16-bit value one
// ulp apart on either side of a rounding boundary follows. Such differences are small where
// the program is well conditioned and large where it is not: past a comparison (a flipped
// bool), a cast to an integer, or a cancellation. The check therefore compares every element
// against a per-dtype tolerance, except elements that are *fragile*:
//  - noise: the program is replayed on the CPU four times more with every value an operation
//    computes with an error of its own perturbed: by 4 to 8 f32 ulps of the value, sums and
//    matmuls also by 8 to 16 ulps (2 to 4 times the square root of their length, if more) of
//    the sum of the magnitudes of their terms (another order of addition), TF32 matmuls by
//    2^-12 to 2^-11 of it (operands rounded to 11 bits; their results count as f16-precise),
//    16-bit results by one or two ulps more (either side of a rounding boundary); the output
//    matmul of an attention chain by a 16-bit ulp of each term (its kernel rounds the
//    probabilities before normalizing them, the CPU after).
//    The replays push every value up, every value down (so that consecutive errors add up
//    rather than cancel), and twice each value either way at random (so that the difference
//    of two values moved the same way moves too; four times where a matmul's result reaches
//    an exp, check.cc's RandomReplays). An element that moves by more than half its
//    tolerance in any of them is ill-conditioned; what the replays move elements by typically
//    (the median) is a floor for the tolerance. (Exact operations: views, selections, abs, neg,
//    widening casts, reductions of one element, add no noise of their own.)
//  - taint (taint.h): comparisons whose operands are within a few ulps of each other (or of the
//    precision's margin absolutely, near 0), casts to integers
//    near an integer, casts to bool of values within 2^-16 of 0, sums whose terms' magnitudes
//    reach 2^127 (an f32 accumulator may overflow where the CPU's double does not), and
//    powers of a base <= 0
//    (NaN, a number or infinity as the exponent crosses an integer) mark their element, and
//    everything computed from it, fragile (values computed exactly on both devices, like
//    inputs, do not). So do those whose operands the replay's noise carried across such a
//    jump from their values without noise (a comparison's sign of a - b, a cast to bool or
//    logical_not of a value near 0, floor, sqrt or log of a value near 0): where a value's
//    noise is wider than its precision's margin (a sum of attention outputs that is exactly
//    0 on one device: seed 24313320). Such a verdict depends on which way a replay pushes:
//    an element fragile in any replay is left out (seed 25513168).
// Elements that are fragile are left out; the rest must match (compare.h). `fuzz diff
// --device=cpu --simulate=0.5` checks the checker: the "device" is then another perturbed
// replay with errors of random sign, half the noise's amplitude. On 3,000 fresh programs
// (2026-11-23, with the rounding, remainder and reduction additions) it reports 3 (0.1%),
// 5.6% of the elements left out: values past a jump (a division by a sum near 0) or through
// exp, where the simulated device's errors (a function of the value) land further than any
// of the four replays did. On seeds 1..3000 (2026-11-27, with attention chains in the
// generator since 791f192) it reported 23 (0.8%), all softmax or attention chains; with four
// random replays for those, 2 (0.07%), 8.2% of the elements left out.
#ifndef TESSEL_TOOLS_FUZZ_SENSITIVITY_H_
#define TESSEL_TOOLS_FUZZ_SENSITIVITY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/fuzz/program.h"

namespace tessel::fuzz {

struct Perturbed {
  std::vector<Tensor> outputs;  // the program's outputs under noise (CPU)
  std::vector<Tensor> fragile;  // per output: kBool, true where an element is tainted
  // Per output: the coarsest floating dtype any value of its cone was computed in (kI32 or
  // kBool when none was): it sets the output's tolerance.
  std::vector<DType> precision;
};

struct NoiseOptions {
  enum Kind {
    kUp,        // every perturbation pushes up, by 0.5 to 1 times its amplitude
    kDown,      // the same, down
    kMixed,     // 0.5 to 1 times the amplitude, with signs at random
    kSimulate,  // -`scale` to `scale` times the amplitude, a function of the value: a device
                // that rounds differently (`fuzz diff --simulate`: a check of the checker)
  };
  Kind kind = kUp;
  uint64_t seed = 0;
  double scale = 1;
};

// Replays `program` on the CPU with values from `data_seed` and the given noise.
absl::StatusOr<Perturbed> ReplayPerturbed(const std::vector<Statement>& program, uint64_t data_seed,
                                          const NoiseOptions& noise);

}  // namespace tessel::fuzz

#endif  // TESSEL_TOOLS_FUZZ_SENSITIVITY_H_
