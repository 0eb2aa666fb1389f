// Topological order of the graph below a set of roots. Graph -> realize, printing, planning.
#ifndef TESSEL_CORE_TOPO_ORDER_H_
#define TESSEL_CORE_TOPO_ORDER_H_

#include <vector>

#include "core/node.h"

namespace tessel {

// Every node the roots reach, producers before consumers, each once. Deterministic:
// depth-first, inputs in order, roots in order. Realized nodes are leaves: listed when
// `include_realized`, left out otherwise. Iterative, so any depth is fine.
std::vector<const Node*> TopologicalOrder(const std::vector<const Node*>& roots,
                                          bool include_realized);

}  // namespace tessel

#endif  // TESSEL_CORE_TOPO_ORDER_H_
