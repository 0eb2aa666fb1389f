// In-place updates: a tensor takes a new value in its own memory.
#ifndef TESSEL_OPS_ASSIGN_H_
#define TESSEL_OPS_ASSIGN_H_

#include "core/tensor.h"

namespace tessel {

// After the next realize that includes `target`, target holds `value` (broadcast to target's
// shape, converted to its dtype) in target's own buffer when target was realized: an optimizer
// step over N parameters keeps no second copy of them, and data_ptr(target) stays the same
// (memory from from_blob receives the values). Tensors that still hold target's old value keep
// seeing it: then target gets a new buffer instead.
void assign(Tensor& target, const Tensor& value);

}  // namespace tessel

#endif  // TESSEL_OPS_ASSIGN_H_
