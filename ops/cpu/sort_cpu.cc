// Sorting: each line along the axis is ordered by a stable sort of its positions (NaN the
// largest value), and the first k positions are kept.
#include <algorithm>
#include <numeric>

#include "ops/cpu/kernels.h"
#include "ops/cpu/strided.h"

namespace tessel::cpu {
namespace {

// a before b in ascending order, NaN last (and equal to NaN).
template <typename C>
bool Before(C a, C b) {
  return !(a != a) && ((b != b) || a < b);
}

// Integers sort as int64 (exact past 2^53), floats as double.
template <typename C>
BufferPtr Sort(const Node& node, const Buffer& in) {
  const Shape& shape = node.input(0).shape();
  const int axis = static_cast<int>(node.attrs().ints[0]);
  const bool descending = node.attrs().ints[1] != 0;
  const int64_t k = node.attrs().ints[2];
  const LineExtents e = ExtentsAround(shape, axis);
  const std::vector<C> values = LoadBroadcast<C>(in, shape, shape);
  std::vector<int64_t> out(e.outer * k * e.inner);
  std::vector<int64_t> order(e.along);
  for (int64_t o = 0; o < e.outer; ++o) {
    for (int64_t i = 0; i < e.inner; ++i) {
      const C* line = values.data() + o * e.along * e.inner + i;
      auto at = [&](int64_t p) { return line[p * e.inner]; };
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return descending ? Before(at(b), at(a)) : Before(at(a), at(b));
      });
      for (int64_t j = 0; j < k; ++j) out[(o * k + j) * e.inner + i] = order[j];
    }
  }
  return StoreAs<int64_t>(node.dtype(), out.data(), static_cast<int64_t>(out.size()));
}

}  // namespace

absl::StatusOr<BufferPtr> RunSort(const Node& node, const InputBuffers& inputs) {
  if (IsFloating(node.input(0).dtype())) return Sort<double>(node, *inputs[0]);
  return Sort<int64_t>(node, *inputs[0]);
}

}  // namespace tessel::cpu
