#include "backend/program_key.h"

#include <algorithm>

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
  // Sized first, then written through a pointer: this runs on every realize, and growing
  // the vector element by element cost 4% of the host path (callgrind, tools/fake_cuda).
  auto leaf = [](const Node* n) { return n->realized() || n->op() == OpKind::kInput; };
  auto attributes = [](const Node* n) {  // a scalar argument's value is not in the key
    return codegen::IsScalarArgument(*n) ? size_t{1} : 1 + n->attrs().ints.size();
  };
  // Whether a kernel checks an op's indices follows from values (ranges) the key does not
  // hold, such as a leaf's or a scalar argument's: the answer is in the key instead.
  auto indexing = [](const Node* n) { return codegen::ReadsIndices(*n); };
  size_t size = 2 + outputs.size();
  for (const Node* n : program.order) {
    size += 3 + (with_extents ? n->shape().rank() : 0);
    if (!leaf(n)) size += attributes(n) + 1 + n->inputs().size() + (indexing(n) ? 1 : 0);
  }
  std::vector<int64_t> key(size);
  int64_t* k = key.data();
  *k++ = fused ? 1 : 0;
  *k++ = with_extents ? 1 : 0;
  for (const Node* n : program.order) {
    *k++ = leaf(n) ? -1 : static_cast<int64_t>(n->op());
    *k++ = static_cast<int64_t>(n->dtype());
    *k++ = n->shape().rank();
    if (with_extents) k = std::copy(n->shape().dims().begin(), n->shape().dims().end(), k);
    if (leaf(n)) continue;
    if (codegen::IsScalarArgument(*n)) {
      *k++ = -2;  // an argument
    } else {
      *k++ = static_cast<int64_t>(n->attrs().ints.size());
      k = std::copy(n->attrs().ints.begin(), n->attrs().ints.end(), k);
    }
    *k++ = static_cast<int64_t>(n->inputs().size());
    for (const NodePtr& in : n->inputs()) *k++ = program.position.at(in.get());
    if (indexing(n)) *k++ = codegen::IndicesInRange(*n) ? 1 : 0;
  }
  for (const Node* out : outputs) *k++ = program.position.at(out);
  return key;
}

}  // namespace tessel::backend
