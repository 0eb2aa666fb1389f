// realize(): Graph -> Backend. Collects the unrealized nodes that the outputs need, in
// topological order, runs them on their device's backend, and stores each output's buffer
// in its node (which then drops its producers).
#ifndef TESSEL_CORE_REALIZE_H_
#define TESSEL_CORE_REALIZE_H_

#include <vector>

#include "core/backend.h"
#include "core/tensor.h"
#include "core/topo_order.h"

namespace tessel {

void realize(const std::vector<Tensor>& outputs);

// The program realize() would hand to the backend: every unrealized node the outputs need,
// producers first, and the distinct unrealized outputs.
Program CollectProgram(const std::vector<const Node*>& outputs);

}  // namespace tessel

#endif  // TESSEL_CORE_REALIZE_H_
