// Reductions: the input is read transposed to (kept axes, reduced axes) so that each output
// is one contiguous row, then reduced with Eigen. Floats accumulate in double, integers in
// int64 (wrapping); max and min propagate NaN as PyTorch does.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/strided.h"
#include "ops/cpu/wrapping.h"

namespace tessel::cpu {
namespace {

template <typename C>
using RowMatrix = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The input's elements ordered (kept axes..., reduced axes...), and the two extents.
template <typename C>
std::vector<C> LoadRows(const Node& node, const Buffer& in, int64_t* rows, int64_t* cols) {
  const Shape& shape = node.input(0).shape();
  const std::vector<int64_t>& axes = node.attrs().ints;
  const Shape::Dims in_strides = shape.Strides();
  Shape::Dims order_dims, order_strides;
  *rows = 1;
  *cols = 1;
  for (int pass = 0; pass < 2; ++pass) {
    for (int d = 0; d < shape.rank(); ++d) {
      const bool reduced = std::binary_search(axes.begin(), axes.end(), d);
      if (reduced != (pass == 1)) continue;
      order_dims.push_back(shape[d]);
      order_strides.push_back(in_strides[d]);
      (reduced ? *cols : *rows) *= shape[d];
    }
  }
  std::vector<C> values(shape.numel());
  VisitDType(in.dtype(), [&](auto zero) {
    using S = decltype(zero);
    const S* src = static_cast<const S*>(in.data());
    ForEachStrided(Shape(order_dims), order_strides, 0,
                   [&](int64_t o, int64_t i) { values[o] = ToCompute<C>(src[i]); });
  });
  return values;
}

// The row's elements combined by `f` from `start`, in order.
template <typename C, typename F>
C Fold(const Eigen::Map<const RowMatrix<C>>& m, int64_t r, C start, F f) {
  for (int64_t c = 0; c < m.cols(); ++c) start = f(start, m(r, c));
  return start;
}

template <typename C>
absl::StatusOr<BufferPtr> Reduce(const Node& node, const Buffer& in) {
  int64_t rows, cols;
  std::vector<C> values = LoadRows<C>(node, in, &rows, &cols);
  Eigen::Map<const RowMatrix<C>> m(values.data(), rows, cols);
  Eigen::Matrix<C, Eigen::Dynamic, 1> out(rows);
  switch (node.op()) {
    case OpKind::kSum:
      if constexpr (std::is_integral_v<C>) {
        for (int64_t r = 0; r < rows; ++r) out[r] = Fold(m, r, C(0), WrapAdd<C>);
      } else {
        out = m.rowwise().sum();
      }
      break;
    case OpKind::kMean:
      out = m.rowwise().sum() / static_cast<C>(cols);
      break;
    case OpKind::kProd:
      for (int64_t r = 0; r < rows; ++r) out[r] = Fold(m, r, C(1), WrapMul<C>);
      break;
    case OpKind::kMax:
      for (int64_t r = 0; r < rows; ++r) out[r] = m.row(r).template maxCoeff<Eigen::PropagateNaN>();
      break;
    case OpKind::kMin:
      for (int64_t r = 0; r < rows; ++r) out[r] = m.row(r).template minCoeff<Eigen::PropagateNaN>();
      break;
    default:
      return absl::InternalError(absl::StrCat("not a reduction: ", OpName(node.op())));
  }
  return StoreAs<C>(node.dtype(), out.data(), rows);
}

}  // namespace

absl::StatusOr<BufferPtr> RunReduce(const Node& node, const InputBuffers& inputs) {
  const DType in = node.input(0).dtype();
  if (!IsFloating(in)) return Reduce<int64_t>(node, *inputs[0]);
  // Max and min are exact in double too; sums want its headroom.
  return Reduce<double>(node, *inputs[0]);
}

}  // namespace tessel::cpu
