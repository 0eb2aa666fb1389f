// The generator's indexing steps (generator_internal.h): scans, sorts and top-k, scatters,
// and gathers, their indices brought in range as programs do.
#include <algorithm>

#include "tools/fuzz/generator_internal.h"

namespace tessel::fuzz::internal {

// cumsum or cumprod along any axis (a scalar is one line of one).
void Generator::Scan() {
  Tensor x = Pick();
  const int axis = x.rank() == 0 ? 0 : RandomAxis(x.rank());
  Add(rng_.Chance(0.7) ? cumsum(Use(x), axis) : cumprod(Use(x), axis));
}

// sort, argsort or topk along any axis, either direction, any k: values or indices.
void Generator::Sort() {
  Tensor x = Pick();
  const int axis = x.rank() == 0 ? 0 : RandomAxis(x.rank());
  const int64_t n = x.rank() == 0 ? 1 : x.shape()[axis < 0 ? axis + x.rank() : axis];
  const bool descending = rng_.Chance(0.5);
  std::pair<Tensor, Tensor> sorted;
  switch (rng_.Below(3)) {
    case 0:
      return Add(argsort(Use(x), axis, descending));
    case 1:
      sorted = sort(Use(x), axis, descending);
      break;
    default: {
      const int64_t k =
          rng_.Chance(0.5) ? rng_.Between(0, std::min<int64_t>(n, 64)) : rng_.Between(0, n);
      sorted = topk(Use(x), k, axis, descending);
      break;
    }
  }
  Add(rng_.Chance(0.5) ? sorted.first : sorted.second);
}

// scatter_add along any axis: an index (a new input brought in range by a remainder) no
// larger than x on the other axes, src no smaller than the index.
void Generator::Scatter() {
  Tensor x = PickNonBool();
  const int axis = x.rank() == 0 ? 0 : RandomAxis(x.rank());
  const int a = axis < 0 ? axis + x.rank() : axis;
  const int64_t size = x.rank() == 0 ? 1 : x.shape()[a];
  if (size == 0) return;
  Shape::Dims index = x.shape().dims(), src;
  for (int d = 0; d < x.rank(); ++d) {
    if (d == a) index[d] = rng_.Between(1, 3 * size);
    if (d != a && rng_.Chance(0.2)) index[d] = rng_.Between(0, index[d]);
  }
  const Shape index_shape = Fit(Shape(index));
  src = index_shape.dims();
  for (int64_t& e : src) e += rng_.Chance(0.2) ? rng_.Between(0, 3) : 0;
  const DType it = rng_.Chance(0.5) ? DType::kI64 : DType::kI32;
  const Tensor at = InRangeIndices(it, index_shape, size);
  Add(scatter_add(Use(x), axis, at, Use(NewInput(x.dtype(), Shape(src)))));
}

// A new input of indices brought into [0, bound) by a remainder, which kernels know (no check:
// [ Note -- value ranges ]); a third of them then pass through f32, which hides the range, so
// that kernels check them as they check indices of unknown values.
Tensor Generator::InRangeIndices(DType dtype, const Shape& shape, int64_t bound) {
  Tensor at = remainder(Use(NewInput(dtype, shape)),
                        full({}, static_cast<double>(bound), dtype, Device::kCPU));
  return rng_.Chance(0.3) ? cast(cast(at, DType::kF32), dtype) : at;
}

// gather, index_select or embedding, its indices (new inputs, i32 or i64) brought in range
// by a remainder: an index out of range is an error on both devices, which tests cover.
void Generator::Index() {
  Tensor x = Pick();
  if (x.rank() == 0 || x.numel() == 0) return;
  const int axis = RandomAxis(x.rank());
  const int a = axis < 0 ? axis + x.rank() : axis;
  const int64_t size = x.shape()[a];
  const DType it = rng_.Chance(0.5) ? DType::kI64 : DType::kI32;
  auto indices = [&](const Shape& shape, int64_t bound) {
    return InRangeIndices(it, shape, bound);
  };
  switch (rng_.Below(3)) {
    case 0: {  // any extent along the axis, no larger than x's on the others
      Shape::Dims dims = x.shape().dims();
      for (int d = 0; d < x.rank(); ++d) {
        if (d == a) dims[d] = rng_.Between(1, 2 * size);
        if (d != a && rng_.Chance(0.2)) dims[d] = rng_.Between(1, dims[d]);
      }
      return Add(gather(Use(x), axis, indices(Fit(Shape(dims)), size)));
    }
    case 1:
      return Add(index_select(Use(x), axis, indices(Fit(Shape{rng_.Between(1, 2 * size)}), size)));
    default:
      if (x.rank() != 2) return;
      return Add(
          embedding(Use(x), indices(Fit(Shape{rng_.Between(1, 9), RandomExtent()}), x.shape()[0])));
  }
}

std::vector<Tensor> Generator::Outputs() {
  std::vector<Tensor> leaves;
  for (const Tensor& t : pool_) {
    if (!consumed_.contains(&t.node())) leaves.push_back(t);
  }
  if (leaves.empty()) leaves.push_back(pool_.back());
  std::vector<Tensor> outputs = {leaves.back()};
  for (int64_t extra = rng_.Weighted({60, 28, 12}); extra > 0; --extra) {
    switch (rng_.Weighted({60, 15, 10, 15})) {
      case 0:
        outputs.push_back(rng_.Pick(leaves));
        break;
      case 1:
        outputs.push_back(rng_.Pick(inputs_));
        break;
      case 2:
        outputs.push_back(outputs.back());  // the same value twice
        break;
      default:
        outputs.push_back(rng_.Pick(pool_));
        break;
    }
  }
  return outputs;
}

}  // namespace tessel::fuzz::internal
