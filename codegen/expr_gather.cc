// Gathers in the expression emitter: the index read, checked where it may be out of range
// (reported, then clamped so that no thread reads out of bounds), and the data read at it.
#include "absl/strings/str_cat.h"
#include "codegen/dtype_exprs.h"
#include "codegen/expr_emitter.h"
#include "codegen/kernel_common.h"

namespace tessel::codegen {

namespace {

// Whether every aligned group of `width` positions along gather `node`'s last axis reads one
// index (it is broadcast along that axis: index_select and embedding) and lands on `width`
// contiguous, aligned elements of the data (the gather axis is another one, and the last
// extents are equal multiples of the width).
bool SameIndexAlongRows(const Node& node, int width) {
  const Node& data = node.input(0);
  const Node& index = node.input(1);
  const int rank = node.shape().rank();
  const int axis = static_cast<int>(node.attrs().ints[0]);
  if (width < 2 || rank < 2 || axis == rank - 1 || index.op() != OpKind::kBroadcast ||
      index.inputs().empty()) {  // realized earlier: its source is gone
    return false;
  }
  const Shape& source = index.input(0).shape();
  const int64_t last = node.shape()[rank - 1];
  return source.rank() > 0 && source[source.rank() - 1] == 1 && data.shape()[rank - 1] == last &&
         last % width == 0;
}

}  // namespace

void ExprEmitter::ReportBadIndices(const Node* node, const IndexExpr& idx, const Value& at) {
  const int64_t size = node->input(0).shape()[node->attrs().ints[0]];
  const std::string bad = absl::StrCat("bad + ", 3 * IndexCheckSlot(kernel_, node));
  const std::string report =
      absl::StrCat("if (", at.At(), " < 0 || ", at.At(), " >= ", size, ") tessel_report_index(",
                   bad, ", ", LinearOffset(idx, node->shape()), ", ", at.At(), ");");
  const std::string guard = idx.Guard();
  const std::string guarded = guard.empty() ? report : absl::StrCat("if (", guard, ") ", report);
  // The index value can vary by lane where its position does not (an input loaded per lane
  // for another output of the kernel).
  if (idx.PerLane() || at.per_lane) {
    w_->Line("#pragma unroll");
    w_->Line("for (int k = 0; k < ", lanes_, "; ++k) ", guarded);
  } else {
    w_->Line(guarded);
  }
}

Value ExprEmitter::Gathered(const Node* node, const IndexExpr& idx) {
  const Node& data = node->input(0);
  const int axis = static_cast<int>(node->attrs().ints[0]);
  const int64_t size = data.shape()[axis];
  const Value at = Get(&node->input(1), idx);  // the index has the gather's shape
  if (data.shape().numel() == 0) {             // nothing to read: every index was reported
    if (IndexCheckSlot(kernel_, node) >= 0) ReportBadIndices(node, idx, at);
    return Value{ConvertExpr("0", DType::kI32, node->dtype()), false};
  }
  // A bad index is reported (realize throws) and read as the nearest good one, so that no
  // thread reads out of bounds.
  const bool checked = IndexCheckSlot(kernel_, node) >= 0;  // see NewKernelSource
  if (checked) ReportBadIndices(node, idx, at);
  const Value clamped =
      Define("at", "index_t", at.per_lane,
             checked ? absl::StrCat("(index_t)(", at.At(), " < 0 ? 0 : ", at.At(), " < ", size,
                                    " ? ", at.At(), " : ", size - 1, ")")
                     : absl::StrCat("(index_t)", at.At()));
  std::vector<std::string> dims = idx.dims;
  std::vector<bool> lane = idx.lane;
  dims[axis] = clamped.At();
  lane[axis] = clamped.per_lane;
  IndexExpr at_data = FromDims(data.shape(), dims, lane);
  if (SameIndexAlongRows(*node, idx.vector_width)) {
    // Lanes of a vector group share the index: they read a contiguous group of the data.
    at_data.linear = LinearOffset(at_data, data.shape());
    at_data.linear_lane = true;
    at_data.vector_width = idx.vector_width;
  }
  return Get(&data, WithGuards(std::move(at_data), idx));
}

}  // namespace tessel::codegen
