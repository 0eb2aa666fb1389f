#include "ops/reduce.h"

#include <algorithm>

#include "ops/record.h"

namespace tessel {
namespace {

using ops_internal::CheckedAxes;
using ops_internal::CommonDevice;
using ops_internal::Describe;
using ops_internal::Record;

Tensor Reduce(OpKind op, const Tensor& x, const std::vector<int>& axes, bool keepdim) {
  const absl::string_view name = OpName(op);
  const Device device = CommonDevice(name, {&x});
  std::vector<int64_t> reduced = CheckedAxes(name, x, axes);
  DType out = x.dtype();
  if (op == OpKind::kSum && out == DType::kBool) out = DType::kI32;
  if (op == OpKind::kMean && !IsFloating(out)) {
    ThrowOpError(name, "needs a floating operand, got ", Describe(x), "; cast first");
  }
  Shape::Dims dims;
  for (int i = 0; i < x.rank(); ++i) {
    const bool is_reduced = std::binary_search(reduced.begin(), reduced.end(), i);
    if (is_reduced && x.shape()[i] == 0 && (op == OpKind::kMax || op == OpKind::kMin)) {
      ThrowOpError(name, "reduces the empty axis ", i, " of ", Describe(x),
                   ", which has no identity");
    }
    if (!is_reduced) {
      dims.push_back(x.shape()[i]);
    } else if (keepdim) {
      dims.push_back(1);
    }
  }
  Attrs attrs;
  attrs.ints = std::move(reduced);
  return Record(op, out, device, Shape(dims), {x.node_ptr()}, std::move(attrs));
}

}  // namespace

Tensor sum(const Tensor& x, std::vector<int> axes, bool keepdim) {
  return Reduce(OpKind::kSum, x, axes, keepdim);
}
Tensor mean(const Tensor& x, std::vector<int> axes, bool keepdim) {
  return Reduce(OpKind::kMean, x, axes, keepdim);
}
Tensor max(const Tensor& x, std::vector<int> axes, bool keepdim) {
  return Reduce(OpKind::kMax, x, axes, keepdim);
}
Tensor min(const Tensor& x, std::vector<int> axes, bool keepdim) {
  return Reduce(OpKind::kMin, x, axes, keepdim);
}

}  // namespace tessel
