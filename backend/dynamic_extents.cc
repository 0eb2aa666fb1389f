#include "backend/dynamic_extents.h"

#include <algorithm>

namespace tessel::backend {

std::vector<int64_t> AllExtents(const OrderedProgram& program) {
  std::vector<int64_t> extents;
  for (const Node* n : program.order) {
    extents.insert(extents.end(), n->shape().dims().begin(), n->shape().dims().end());
  }
  return extents;
}

std::optional<DynamicChoice> ChooseDynamicRows(const OrderedProgram& program,
                                               const std::vector<int64_t>& extents,
                                               Family& family) {
  if (family.first.empty() && family.dynamic.empty()) {
    family.first = extents;
    family.dynamic.assign(extents.size(), false);
    return std::nullopt;
  }
  if (extents.size() != family.first.size()) return std::nullopt;
  bool any = false;
  for (size_t i = 0; i < extents.size(); ++i) {
    if (extents[i] != family.first[i]) family.dynamic[i] = true;
    any = any || family.dynamic[i];
  }
  if (!any) return std::nullopt;
  DynamicChoice choice;
  size_t at = 0;
  for (const Node* n : program.order) {
    const int rank = n->shape().rank();
    for (int d = 0; d < rank; ++d, ++at) {
      if (!family.dynamic[at]) continue;
      if (d != 0) return std::nullopt;  // only leading extents
      if (choice.rows != 0 && extents[at] != choice.rows) return std::nullopt;  // one B
      choice.rows = extents[at];
      choice.dynamic.nodes.insert(n);
    }
  }
  if (choice.rows < 2) return std::nullopt;
  for (const Node* n : program.order) {
    // Reversing the batch axis reads at (B - 1 - row), and a gather along it checks its
    // indices against B: the extent itself is in the index math.
    const std::vector<int64_t>& axes = n->attrs().ints;
    const bool flips = n->op() == OpKind::kFlip && choice.dynamic.Has(n) &&
                       std::find(axes.begin(), axes.end(), 0) != axes.end();
    const bool gathers = n->op() == OpKind::kGather && !n->realized() && axes[0] == 0 &&
                         choice.dynamic.Has(n->inputs()[0].get());
    if (flips || gathers) return std::nullopt;
  }
  for (size_t i = 0; i < extents.size(); ++i) {
    if (!family.dynamic[i] && extents[i] == choice.rows) return std::nullopt;  // ambiguous
  }
  while ((int64_t{2} << choice.bucket) <= choice.rows) ++choice.bucket;
  if (std::find(family.refused_buckets.begin(), family.refused_buckets.end(), choice.bucket) !=
      family.refused_buckets.end()) {
    return std::nullopt;
  }
  choice.dynamic.max = (int64_t{2} << choice.bucket) - 1;
  return choice;
}

}  // namespace tessel::backend
