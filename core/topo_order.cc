#include "core/topo_order.h"

#include <utility>

#include "absl/container/flat_hash_set.h"

namespace tessel {

std::vector<const Node*> TopologicalOrder(const std::vector<const Node*>& roots,
                                          bool include_realized) {
  std::vector<const Node*> order;
  order.reserve(64);
  // The set and the stack are the thread's, kept between calls: every realize walks its
  // program, and allocating them afresh each time (64 slots up front; growing from empty was
  // 6% of a 10-op record + realize) cost more than clearing them.
  thread_local absl::flat_hash_set<const Node*> visited;
  thread_local std::vector<std::pair<const Node*, size_t>> stack;  // (node, next input)
  visited.clear();
  stack.clear();
  if (visited.capacity() < 64) visited.reserve(64);
  auto wanted = [&](const Node* n) {
    return (include_realized || !n->realized()) && visited.insert(n).second;
  };
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
