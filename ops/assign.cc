#include "ops/assign.h"

#include "core/realize.h"
#include "ops/record.h"
#include "ops/structure.h"

namespace tessel {

void assign(Tensor& target, const Tensor& value) {
  using ops_internal::Describe;
  const Device device = ops_internal::CommonDevice("assign", {&target, &value});
  absl::StatusOr<Shape> shape = BroadcastShapes(value.shape(), target.shape());
  if (!shape.ok() || *shape != target.shape()) {
    ThrowOpError("assign", "value ", Describe(value), " does not broadcast to the target ",
                 Describe(target));
  }
  const Tensor v = value.shape() == target.shape() ? value : broadcast_to(value, target.shape());
  // A copy of its own (never merged with an equal expression), carrying where it goes.
  NodePtr copy =
      MakeUniqueNode(OpKind::kCast, target.dtype(), device, target.shape(), {v.node_ptr()});
  SetAssignTarget(target.node_ptr(), *copy);
  target = Tensor(std::move(copy));
}

}  // namespace tessel
