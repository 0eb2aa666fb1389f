#include "core/topo_order.h"

#include <utility>

#include "absl/container/flat_hash_set.h"

namespace tessel {

std::vector<const Node*> TopologicalOrder(const std::vector<const Node*>& roots,
                                          bool include_realized) {
  std::vector<const Node*> order;
  absl::flat_hash_set<const Node*> visited;
  // Room for a typical program up front: growing the set step by step from empty was 6% of
  // a 10-op record + realize (perf, fake driver).
  visited.reserve(64);
  order.reserve(64);
  auto wanted = [&](const Node* n) {
    return (include_realized || !n->realized()) && visited.insert(n).second;
  };
  std::vector<std::pair<const Node*, size_t>> stack;  // (node, next input to visit)
  for (const Node* root : roots) {
    if (!wanted(root)) continue;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->inputs().size()) {
        const Node* in = node->inputs()[next++].get();
        if (wanted(in)) stack.emplace_back(in, 0);
        continue;
      }
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace tessel
