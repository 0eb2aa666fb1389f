// How a pointwise kernel's inputs are laid out against its iteration space: for each input,
// the axis of the space that moves along the input's contiguous (innermost) axis. Where most
// of the bytes read move along another axis than the space's innermost one (`transpose(x) +
// 1`, a permute of the last axes), a thread order that follows the output reads those inputs
// one element per stride; codegen/transpose_codegen.cc then tiles the space through shared
// memory so that both sides are coalesced.
#ifndef TESSEL_FUSION_ACCESS_H_
#define TESSEL_FUSION_ACCESS_H_

#include <cstdint>

#include "fusion/plan.h"

namespace tessel {

// The two axes of a transposing pointwise kernel's space: `across` is the space's innermost
// axis of extent > 1 (the outputs' contiguous one), `along` the axis that moves along most
// input bytes' contiguous axis.
struct TransposedAxes {
  int along = -1;
  int across = -1;
  // The longest step along `across`, in bytes, in the inputs read contiguously along `along`
  // (how far apart the rows of a tile lie in memory).
  int64_t across_stride_bytes = 0;
  bool Tiled() const { return along >= 0; }
};

// The axes to tile for a pointwise kernel of one iteration space, or none (Tiled() false):
// where inputs read contiguously along some axis other than the innermost outweigh those
// read along the innermost, and both axes are at least `min_extent` long.
TransposedAxes TransposedAccess(const FusedKernel& kernel, int64_t min_extent);

}  // namespace tessel

#endif  // TESSEL_FUSION_ACCESS_H_
