#include "ops/record.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/execution.h"

namespace tessel::ops_internal {

std::string Describe(const Tensor& t) {
  return absl::StrCat(DTypeName(t.dtype()), t.shape().ToString());
}

// "cpu", "cuda:1".
std::string PlaceName(const Tensor& t) {
  if (t.device() == Device::kCPU) return std::string(DeviceName(t.device()));
  return absl::StrCat(DeviceName(t.device()), ":", t.node().device_index());
}

Device CommonDevice(absl::string_view op, std::initializer_list<const Tensor*> operands) {
  const Tensor* first = nullptr;
  for (const Tensor* t : operands) {
    CheckedNode(*t, op);
    if (first == nullptr) {
      first = t;
    } else if (t->device() != first->device() ||
               t->node().device_index() != first->node().device_index()) {
      ThrowOpError(op, "operands are on different devices: ", Describe(*first), " on ",
                   PlaceName(*first), ", ", Describe(*t), " on ", PlaceName(*t));
    }
  }
  return first->device();
}

namespace {
int AxisOfRank(absl::string_view op, const Tensor& t, int64_t axis, int rank) {
  int normalized;
  if (!NormalizeAxis(axis, rank, &normalized)) {
    ThrowOpError(op, "axis ", axis, " is out of range for ", Describe(t), " (rank ", t.rank(), ")");
  }
  return normalized;
}
}  // namespace

int CheckedAxis(absl::string_view op, const Tensor& t, int64_t axis) {
  return AxisOfRank(op, t, axis, t.rank());
}

int CheckedLineAxis(absl::string_view op, const Tensor& t, int64_t axis) {
  return AxisOfRank(op, t, axis, std::max(1, t.rank()));
}

std::vector<int64_t> CheckedAxes(absl::string_view op, const Tensor& t,
                                 const std::vector<int>& axes) {
  std::vector<int64_t> out;
  if (axes.empty()) {
    for (int i = 0; i < t.rank(); ++i) out.push_back(i);
    return out;
  }
  if (t.rank() == 0) {  // as in PyTorch, a scalar's one axis 0 (or -1) names no axis
    if (axes.size() > 1 || (axes[0] != 0 && axes[0] != -1)) {
      ThrowOpError(op, "axes [", absl::StrJoin(axes, ","), "] are out of range for ", Describe(t),
                   " (a scalar takes axis 0 or -1)");
    }
    return out;
  }
  for (int axis : axes) out.push_back(CheckedAxis(op, t, axis));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) {
    ThrowOpError(op, "axes [", absl::StrJoin(axes, ","), "] name an axis twice for ", Describe(t));
  }
  return out;
}

Tensor ScalarTensor(double value, DType dtype, const Tensor& like) {
  Attrs attrs;
  attrs.value = value;
  const DeviceOfScope on(like);
  return Tensor(MakeNode(OpKind::kFull, dtype, like.device(), Shape{}, {}, std::move(attrs)));
}

void CheckIntegerFill(absl::string_view op, double value, DType dtype, absl::string_view what) {
  if (IsInteger(dtype) && !FitsInteger(dtype, value)) {
    ThrowOpError(op, "value ", value, " is not a value of ", what);
  }
}

void CheckShapeLimits(absl::string_view op, const Shape& shape) {
  if (!WithinLimits(shape)) {
    ThrowOpError(op, "shape ", shape.ToString(), " has more than 2^60 elements or an extent ",
                 "past 2^60");
  }
}

Tensor Record(OpKind op, DType dtype, Device device, Shape shape, NodeInputs inputs, Attrs attrs) {
  CheckShapeLimits(GetOpInfo(op).name, shape);
  return Tensor(MakeNode(op, dtype, device, std::move(shape), std::move(inputs), std::move(attrs)));
}

}  // namespace tessel::ops_internal
