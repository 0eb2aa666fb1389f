#include "absl/base/casts.h"
#include "absl/strings/str_cat.h"
#include "core/element.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/strided.h"
#include "ops/philox.h"

namespace tessel::cpu {

absl::StatusOr<BufferPtr> RunSource(const Node& node) {
  const int64_t n = node.shape().numel();
  const uint64_t seed =
      node.attrs().ints.empty() ? 0 : absl::bit_cast<uint64_t>(node.attrs().ints[0]);
  std::vector<double> values(n);
  switch (node.op()) {
    case OpKind::kFull:
      std::fill(values.begin(), values.end(), node.attrs().value);
      break;
    case OpKind::kArange:
      for (int64_t i = 0; i < n; ++i) values[i] = static_cast<double>(i);
      break;
    case OpKind::kRand:
      for (int64_t i = 0; i < n; ++i) values[i] = RandElement(seed, i, node.dtype());
      break;
    case OpKind::kRandn:
      for (int64_t i = 0; i < n; ++i) values[i] = RandnElement(seed, i);
      break;
    case OpKind::kInput:
      return absl::FailedPreconditionError(
          absl::StrCat("an input ", DTypeName(node.dtype()), node.shape().ToString(),
                       " has no data (a graph parsed from text has placeholders only)"));
    default:
      return absl::InternalError(absl::StrCat("not a source operation: ", OpName(node.op())));
  }
  return StoreAs(node.dtype(), values.data(), n);
}

}  // namespace tessel::cpu
