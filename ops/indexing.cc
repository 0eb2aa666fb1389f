#include "ops/indexing.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/execution.h"
#include "ops/creation.h"
#include "ops/pointwise.h"
#include "ops/record.h"
#include "ops/reduce.h"
#include "ops/sort.h"
#include "ops/structure.h"

namespace tessel {
namespace {

using ops_internal::CheckedAxis;
using ops_internal::CheckedLineAxis;
using ops_internal::CommonDevice;
using ops_internal::Describe;
using ops_internal::Gather;
using ops_internal::IndexCaller;
using ops_internal::IndexCallerName;
using ops_internal::Record;

void CheckIndexDType(absl::string_view op, const Tensor& index) {
  if (index.dtype() != DType::kI32 && index.dtype() != DType::kI64) {
    ThrowOpError(op, "the index must be i32 or i64, got ", Describe(index));
  }
}

// x's entries along `axis` at the positions of the 1-D `index`: a broadcast gather.
Tensor Select(IndexCaller caller, const Tensor& x, int axis, const Tensor& index) {
  const absl::string_view op = IndexCallerName(caller);
  OpErrorScope scope(op);
  CommonDevice(op, {&x, &index});
  CheckIndexDType(op, index);
  if (index.rank() > 1) ThrowOpError(op, "the index must be 1-D, got ", Describe(index));
  if (x.rank() == 0) ThrowOpError(op, "needs an operand of rank 1 or more, got ", Describe(x));
  const int a = CheckedAxis(op, x, axis);
  Shape::Dims along(x.rank(), 1), out = x.shape().dims();
  along[a] = out[a] = index.numel();
  return Gather(caller, x, a, broadcast_to(reshape(index, Shape(along)), Shape(out)));
}

}  // namespace

absl::string_view ops_internal::IndexCallerName(IndexCaller caller) {
  switch (caller) {
    case IndexCaller::kIndexSelect:
      return "index_select";
    case IndexCaller::kEmbedding:
      return "embedding";
    case IndexCaller::kOneHot:
      return "one_hot";
    case IndexCaller::kGather:
      break;
  }
  return "gather";
}

// kGather for `caller` (which names it in out-of-range errors: IndexCaller).
Tensor ops_internal::Gather(IndexCaller caller, const Tensor& x, int axis, const Tensor& index) {
  const absl::string_view op = IndexCallerName(caller);
  OpErrorScope scope(op);
  const Device device = CommonDevice(op, {&x, &index});
  CheckIndexDType(op, index);
  if (x.rank() == 0 && index.rank() == 0) {  // a scalar is one entry along axis 0
    CheckedLineAxis(op, x, axis);
    return reshape(Gather(caller, reshape(x, {1}), 0, reshape(index, {1})), {});
  }
  const int a = CheckedAxis(op, x, axis);
  bool fits = index.rank() == x.rank();
  for (int d = 0; fits && d < x.rank(); ++d) fits = d == a || index.shape()[d] <= x.shape()[d];
  if (!fits) {
    ThrowOpError(op, "index ", Describe(index), " does not fit ", Describe(x), " along axis ", a,
                 " (same rank, no larger on the other axes)");
  }
  Attrs attrs;
  attrs.ints = {a, static_cast<int64_t>(caller)};
  return Record(OpKind::kGather, x.dtype(), device, index.shape(), {x.node_ptr(), index.node_ptr()},
                std::move(attrs));
}

absl::Status ops_internal::IndexOutOfRange(const Node& node, int64_t value) {
  const Node& data = node.input(0);
  const int axis = static_cast<int>(node.attrs().ints[0]);
  const bool gather = node.op() == OpKind::kGather;
  const auto caller =
      gather ? static_cast<IndexCaller>(node.attrs().ints[1]) : IndexCaller::kGather;
  const absl::string_view op = gather ? IndexCallerName(caller) : GetOpInfo(node.op()).name;
  if (gather && caller == IndexCaller::kOneHot) {  // its data is a row of zeros it made
    return absl::OutOfRangeError(
        absl::StrCat("one_hot: id ", value, " is out of range for classes = ", data.shape()[axis]));
  }
  return absl::OutOfRangeError(absl::StrCat(
      op, ": index ", value, " is out of range for axis ", axis, " of ", DTypeName(data.dtype()),
      data.shape().ToString(), " (size ", data.shape()[axis], ")"));
}

Tensor gather(const Tensor& x, int axis, const Tensor& index) {
  return Gather(IndexCaller::kGather, x, axis, index);
}

Tensor index_select(const Tensor& x, int axis, const Tensor& index) {
  return Select(IndexCaller::kIndexSelect, x, axis, index);
}

Tensor embedding(const Tensor& table, const Tensor& ids) {
  OpErrorScope scope("embedding");
  CommonDevice("embedding", {&table, &ids});
  if (table.rank() != 2) {
    ThrowOpError("embedding", "the table must be [rows, width], got ", Describe(table));
  }
  CheckIndexDType("embedding", ids);
  Shape::Dims out = ids.shape().dims();
  out.push_back(table.shape()[1]);
  return reshape(Select(IndexCaller::kEmbedding, table, 0, reshape(ids, {-1})), Shape(out));
}

Tensor scatter_add(const Tensor& x, int axis, const Tensor& index, const Tensor& src) {
  OpErrorScope scope("scatter_add");
  const Device device = CommonDevice("scatter_add", {&x, &index, &src});
  CheckIndexDType("scatter_add", index);
  if (src.dtype() != x.dtype()) {
    ThrowOpError("scatter_add", "src ", Describe(src), " must have the dtype of ", Describe(x));
  }
  if (x.dtype() == DType::kBool) ThrowOpError("scatter_add", "does not add bool ", Describe(x));
  const int a = CheckedLineAxis("scatter_add", x, axis);
  bool fits = index.rank() == x.rank() && src.rank() == x.rank();
  for (int d = 0; fits && d < x.rank(); ++d) {
    fits = index.shape()[d] <= src.shape()[d] && (d == a || index.shape()[d] <= x.shape()[d]);
  }
  if (!fits) {
    ThrowOpError("scatter_add", "index ", Describe(index), " does not fit src ", Describe(src),
                 " and ", Describe(x), " along axis ", a,
                 " (same rank, no larger than src, nor than x on the other axes)");
  }
  if (device == Device::kCUDA && index.rank() > 0 &&
      index.shape()[a] > ops_internal::kMaxCudaSortLine) {
    ThrowOpError("scatter_add", "index lines of ", index.shape()[a], " elements (axis ", a, " of ",
                 Describe(index), ") on CUDA are not built yet (at most ",
                 ops_internal::kMaxCudaSortLine, ": their stable order is sorted)");
  }
  if (x.rank() == 0) {  // one line of one
    auto line = [](const Tensor& t) { return reshape(t, {1}); };
    return reshape(scatter_add(line(x), 0, line(index), line(src)), {});
  }
  Attrs attrs;
  attrs.ints = {a};
  // The index's stable order along the axis: CUDA adds each target's terms in the order the
  // CPU does by walking it, so the same input gives the same bits on both devices (no
  // atomics). Recorded on every device, so that a program plans alike on each.
  return Record(OpKind::kScatterAdd, x.dtype(), device, x.shape(),
                {x.node_ptr(), index.node_ptr(), src.node_ptr(), argsort(index, a).node_ptr()},
                std::move(attrs));
}

Tensor one_hot(const Tensor& ids, int64_t classes) {
  OpErrorScope scope("one_hot");
  const Device device = CommonDevice("one_hot", {&ids});
  CheckIndexDType("one_hot", ids);
  if (classes == -1) {
    // As PyTorch: the largest id plus one, which the ids' values decide (a realize, and on
    // the GPU a wait for it, at the call).
    if (ids.numel() == 0) {
      ThrowOpError("one_hot", "cannot infer the classes of empty ids ", Describe(ids),
                   "; pass them");
    }
    classes = std::max<int64_t>(max(ids).to_vector<int64_t>()[0], 0) + 1;
  }
  if (classes < 1) ThrowOpError("one_hot", "classes must be positive or -1, got ", classes);
  Shape::Dims column = ids.shape().dims();
  column.push_back(1);
  const Tensor id = reshape(ids, Shape(column));
  const DeviceOfScope on(ids);
  const Tensor hot = cast(eq(id, arange(classes, ids.dtype(), device)), DType::kF32);
  // Gathering a zero per id checks every id against the classes (and adds nothing).
  const Tensor checked =
      Select(IndexCaller::kOneHot, zeros({classes}, DType::kF32, device), 0, reshape(ids, {-1}));
  return hot + reshape(checked, Shape(column));
}

}  // namespace tessel
