#include "codegen/attention_operands.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/gemm_common.h"
#include "codegen/index_expr.h"
#include "codegen/kernel_common.h"
#include "core/error.h"

namespace tessel::codegen {
namespace {

// An operand's batch axes apart from the `fold` innermost ones, as memory steps through them
// (outermost first): at most three (fusion/attention.cc).
std::vector<MemoryAxis> BatchSteps(const AttentionOperand& o, int fold) {
  std::vector<int> axes;
  for (int b = 0; b < o.batch.rank() - fold; ++b) axes.push_back(b);
  return MemoryAxes(o.node->shape(), o.layout.strides, axes);
}

// The batch entry `entry`'s position in an operand: per batch axis, the index expression.
std::vector<std::string> BatchIndex(const AttentionOperand& o, const Shape& out_batch,
                                    const std::string& entry) {
  return Broadcast(FromLinear(out_batch, entry, false, 1), out_batch, o.batch).dims;
}

}  // namespace

AttentionOperand ReadOperand(const FusedKernel& kernel, const Node& operand, bool k_t) {
  auto is_input = [&](const Node& n) {
    return std::find(kernel.inputs.begin(), kernel.inputs.end(), &n) != kernel.inputs.end();
  };
  std::optional<StridedLayout> layout = LayoutOverViews(operand, is_input);
  TESSEL_CHECK(layout.has_value(), "the planner left an attention operand's views unreadable");
  AttentionOperand o;
  o.node = &operand;
  o.layout = *std::move(layout);
  const int rank = operand.shape().rank();
  o.d_axis = k_t ? rank - 2 : rank - 1;
  o.row_axis = k_t ? rank - 1 : rank - 2;
  o.batch = BatchOf(operand.shape());
  return o;
}

int64_t HeadDimension(const AttentionOperand& q) {
  const int64_t cols = q.node->shape()[q.d_axis];
  return cols <= 64 ? 64 : cols <= 128 ? 128 : 256;
}

Folding FoldHeadGroups(const AttentionOperand& q, const AttentionOperand& k,
                       const AttentionOperand& v, const Shape& out_batch, int64_t sq,
                       int query_tile) {
  Folding f;
  f.sq = sq;
  if (sq >= query_tile) return f;                // tiles are full already
  auto dim = [](const Shape& s, int from_end) {  // batch axes aligned at the right, 1 past
    return from_end < s.rank() ? s[s.rank() - 1 - from_end] : 1;
  };
  Folding wider = f;
  for (int a = 0; a < out_batch.rank(); ++a) {
    const int64_t n = dim(out_batch, a);
    if (dim(k.batch, a) != 1 || dim(v.batch, a) != 1 || dim(q.batch, a) != n) break;
    wider.factor *= n;
    wider.axes = std::min(a + 1, q.batch.rank());
    // The folded axes and the rows must step as one through q's memory.
    std::vector<int> axes;
    for (int b = q.batch.rank() - wider.axes; b < q.batch.rank(); ++b) axes.push_back(b);
    axes.push_back(q.row_axis);
    if (MemoryAxes(q.node->shape(), q.layout.strides, axes).size() > 1) break;
    f = wider;
  }
  return f;
}

int64_t RowStep(const AttentionOperand& o, int fold) {
  std::vector<int> axes;
  for (int b = o.batch.rank() - fold; b < o.batch.rank(); ++b) axes.push_back(b);
  axes.push_back(o.row_axis);
  const std::vector<MemoryAxis> rows = MemoryAxes(o.node->shape(), o.layout.strides, axes);
  return rows.empty() ? o.node->shape()[o.d_axis] : rows.back().stride;
}

TensorMapSpec OperandMap(const KernelSource& ks, const AttentionOperand& o, const Folding& f,
                         int fold_axes, int box_rows) {
  const int64_t elem = 2;
  TensorMapSpec map;
  map.arg = InputIndex(ks, o.layout.base);
  map.offset = o.layout.offset * elem;
  map.dtype = o.layout.base->dtype();
  map.rank = 5;
  map.dims[0] = o.node->shape()[o.d_axis];
  map.dims[1] = o.node->shape()[o.row_axis] * (fold_axes > 0 ? f.factor : 1);
  map.strides[0] = RowStep(o, fold_axes) * elem;
  const std::vector<MemoryAxis> batch = BatchSteps(o, fold_axes);
  TESSEL_CHECK(batch.size() <= 3, "an attention operand has more than three batch steps");
  for (int i = 0; i < 3; ++i) {
    const bool used = i < static_cast<int>(batch.size());
    map.dims[2 + i] = used ? batch[batch.size() - 1 - i].extent : 1;
    map.strides[1 + i] = used ? batch[batch.size() - 1 - i].stride * elem : map.strides[i];
  }
  map.box = {64, box_rows};
  return map;
}

std::string MapCoordinates(const AttentionOperand& o, int fold_axes, const Shape& out_batch,
                           const std::string& entry) {
  const std::vector<std::string> index = BatchIndex(o, out_batch, entry);
  const std::vector<MemoryAxis> batch = BatchSteps(o, fold_axes);
  std::vector<std::string> coords;
  for (auto m = batch.rbegin(); m != batch.rend(); ++m) {
    std::vector<std::string> terms;
    for (int a : m->axes) {
      const int64_t step = o.layout.strides[a] / m->stride;
      terms.push_back(
          absl::StrCat("(int)(", index[a], ")", step == 1 ? "" : absl::StrCat(" * ", step)));
    }
    coords.push_back(absl::StrJoin(terms, " + "));
  }
  while (coords.size() < 3) coords.push_back("0");
  return absl::StrCat("{", absl::StrJoin(coords, ", "), "}");
}

std::string ElementOffset(const AttentionOperand& o, const Shape& out_batch,
                          const std::string& entry) {
  const std::vector<std::string> index = BatchIndex(o, out_batch, entry);
  std::string sum = absl::StrCat(o.layout.offset, "LL");
  for (int a = 0; a < o.batch.rank(); ++a) {
    if (o.layout.strides[a] != 0 && o.batch[a] != 1) {
      absl::StrAppend(&sum, " + (long long)(", index[a], ") * ", o.layout.strides[a]);
    }
  }
  return sum;
}

}  // namespace tessel::codegen
