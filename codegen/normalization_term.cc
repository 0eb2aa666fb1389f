#include "codegen/normalization_term.h"

#include "ops/cuda_expr.h"

namespace tessel::codegen {
namespace {

// A node computed from its inputs here: a realized node holds data and no inputs.
bool Computed(const Node& n) { return !n.realized() && !n.inputs().empty(); }

// The max that `shift` is: m itself, or where(isfinite(m), m, c) (logsumexp's guard against
// an infinite max); null where it is neither.
const Node* MaxOf(const Node& shift) {
  if (shift.op() == OpKind::kWhere && Computed(shift)) {
    const Node& finite = shift.input(0);
    const Node& m = shift.input(1);
    const bool guard = finite.op() == OpKind::kIsFinite && Computed(finite) &&
                       &finite.input(0) == &m && shift.input(2).op() == OpKind::kFull;
    return guard ? MaxOf(m) : nullptr;
  }
  return shift.op() == OpKind::kMax && Computed(shift) ? &shift : nullptr;
}

}  // namespace

bool IsNormalizationTerm(const Node& exp) {
  if (exp.op() != OpKind::kExp || !Computed(exp) || CudaComputeDType(exp.dtype()) != DType::kF32) {
    return false;
  }
  const Node& sub = exp.input(0);
  if (sub.op() != OpKind::kSub || !Computed(sub) || CudaComputeDType(sub.dtype()) != DType::kF32) {
    return false;
  }
  const Node& y = sub.input(0);
  const Node& shift = sub.input(1);
  const Node* m = MaxOf(shift);
  // Kept as y's rank (1 on the reduced axes), m broadcasts onto the positions it is the max
  // of, so that y - m <= 0.
  return m != nullptr && &m->input(0) == &y && m->shape().rank() == y.shape().rank() &&
         shift.shape() == m->shape();
}

}  // namespace tessel::codegen
