#include "backend/program_key.h"

#include "codegen/kernel_source.h"

namespace tessel::backend {

OrderedProgram OrderProgram(const Program& program) {
  OrderedProgram p;
  p.order.reserve(program.nodes.size() * 2);
  p.position.reserve(program.nodes.size() * 2);
  for (const Node* n : program.nodes) {
    for (const NodePtr& in : n->inputs()) {
      if (in->realized() && p.position.emplace(in.get(), static_cast<int>(p.order.size())).second) {
        p.order.push_back(in.get());
      }
    }
    p.position[n] = static_cast<int>(p.order.size());
    p.order.push_back(n);
  }
  return p;
}

std::vector<int64_t> StructureKey(const OrderedProgram& program,
                                  const std::vector<const Node*>& outputs, bool fused,
                                  bool with_extents) {
  std::vector<int64_t> key;
  key.reserve(program.order.size() * 8);
  key.push_back(fused ? 1 : 0);
  key.push_back(with_extents ? 1 : 0);
  for (const Node* n : program.order) {
    const bool leaf = n->realized() || n->op() == OpKind::kInput;
    key.push_back(leaf ? -1 : static_cast<int64_t>(n->op()));
    key.push_back(static_cast<int64_t>(n->dtype()));
    key.push_back(n->shape().rank());
    if (with_extents) key.insert(key.end(), n->shape().dims().begin(), n->shape().dims().end());
    if (leaf) continue;
    if (codegen::IsScalarArgument(*n)) {
      key.push_back(-2);  // an argument
    } else {
      key.push_back(static_cast<int64_t>(n->attrs().ints.size()));
      key.insert(key.end(), n->attrs().ints.begin(), n->attrs().ints.end());
    }
    key.push_back(static_cast<int64_t>(n->inputs().size()));
    for (const NodePtr& in : n->inputs()) key.push_back(program.position.at(in.get()));
  }
  for (const Node* out : outputs) key.push_back(program.position.at(out));
  return key;
}

}  // namespace tessel::backend
