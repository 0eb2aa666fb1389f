// Random programs over the whole public API: Seed -> program text (program.h).
//
// A program starts from a few inputs and applies random operations to the values it has,
// preferring the newest (so that chains form, as they do in real code): elementwise math
// with tensors and scalars, comparisons and where, casts to every dtype, reductions over any
// axes with and without keepdim, the composites (softmax, log_softmax, layer_norm, rms_norm,
// gelu, silu, linear), every view (reshape, permute, transpose, broadcast_to, slice),
// concat, matmuls of every layout (transposed operands, vectors, batches that broadcast,
// odd sizes, TF32), creation ops, and realizes in the middle. Shapes favour the awkward:
// size-1 and size-0 axes, rank 0, odd extents. It returns 1 to 3 outputs, among them at times
// an input, a view or the same value twice.
#ifndef TESSEL_TOOLS_FUZZ_GENERATOR_H_
#define TESSEL_TOOLS_FUZZ_GENERATOR_H_

#include <cstdint>
#include <string>

namespace tessel::fuzz {

struct GeneratorOptions {
  int64_t max_elements = int64_t{1} << 18;  // per value
  int64_t max_matmul_flops = int64_t{1} << 25;
  int max_steps = 14;
  // Cross-entropy's one-hot pick (a sum of where(eq(arange, t), x, e)) over fresh logits, as
  // a step of its own: campaigns whose rows stream at small sizes take it (--staged_row), the
  // others keep their programs as they were.
  bool one_hot_picks = false;
  // The campaign's --staged_row (0: none): a step normalizes many rows just past it, which a
  // block holds in shared memory (codegen/row_held.cc) or streams.
  int64_t staged_row = 0;
};

std::string GenerateProgram(uint64_t seed, const GeneratorOptions& options = {});

}  // namespace tessel::fuzz

#endif  // TESSEL_TOOLS_FUZZ_GENERATOR_H_
