// The planner's working state (fusion/planner_state.h): built from a program, and the groups'
// membership and dependencies as the phases change them.
#include "fusion/planner_state.h"

#include <utility>

namespace tessel::fusion_internal {

PlannerState::PlannerState(const Program& p, const FusionOptions& o) : options(o) {
  // Values without elements need no kernel: the backend gives each an empty buffer.
  for (const Node* node : p.nodes) {
    if (node->op() != OpKind::kInput && node->shape().numel() > 0) nodes.push_back(node);
  }
  const int n = static_cast<int>(nodes.size());
  for (int i = 0; i < n; ++i) index[nodes[i]] = i;
  consumers.resize(n);
  for (const Node* node : nodes) {
    for (const NodePtr& in : node->inputs()) {
      if (InProgram(in.get())) consumers[Index(in.get())].push_back(node);
    }
  }
  for (const Node* out : p.outputs) {
    if (InProgram(out)) outputs.insert(out);
  }
  group_of.assign(n, -1);
  inline_depth.assign(n, 0);
  depth_cut.assign(n, false);
  floating_deps.resize(n);
  written.assign(n, false);
  write_reason.resize(n);
}

bool PlannerState::GroupReaches(int from, int to) const {
  std::vector<int> stack = {from};
  absl::flat_hash_set<int> seen = {from};
  while (!stack.empty()) {
    const int g = stack.back();
    stack.pop_back();
    if (g == to) return true;
    for (int d : groups[g].deps) {
      if (seen.insert(d).second) stack.push_back(d);
    }
  }
  return false;
}

absl::flat_hash_set<int> Deps::All() const {
  absl::flat_hash_set<int> all = direct;
  all.insert(via_floating.begin(), via_floating.end());
  return all;
}

Deps DepsOf(const PlannerState& s, const Node* n) {
  Deps deps;
  for (const NodePtr& in : n->inputs()) {
    if (!s.InProgram(in.get())) continue;  // realized leaf
    const int i = s.Index(in.get());
    if (s.group_of[i] >= 0) {
      deps.direct.insert(s.group_of[i]);
    } else {
      deps.via_floating.insert(s.floating_deps[i].begin(), s.floating_deps[i].end());
    }
  }
  return deps;
}

std::string JoinRefusal(const PlannerState& s, int g, const Deps& deps) {
  if (deps.via_floating.contains(g)) {
    return "it reads the group's values at other positions (through a view)";
  }
  for (int d : deps.All()) {
    if (d != g && s.GroupReaches(d, g)) return "merge would create a cycle";
  }
  return "";
}

void Join(PlannerState& s, const Node* n, int g, const Deps& deps) {
  s.group_of[s.Index(n)] = g;
  Group& group = s.groups[g];
  group.members.push_back(n);
  for (int d : deps.All()) {
    if (d != g) group.deps.insert(d);
  }
}

int NewGroup(PlannerState& s, Group group) {
  s.groups.push_back(std::move(group));
  return static_cast<int>(s.groups.size()) - 1;
}

}  // namespace tessel::fusion_internal
