// A chain of views as strides over the memory below it: what a kernel that reads a view in
// place (a TMA descriptor, a pointer and row strides) needs to know about it.
#ifndef TESSEL_CORE_STRIDED_VIEW_H_
#define TESSEL_CORE_STRIDED_VIEW_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "core/node.h"

namespace tessel {

struct StridedLayout {
  const Node* base = nullptr;    // the value whose row-major memory the view reads
  int64_t offset = 0;            // elements from the start of base's memory
  std::vector<int64_t> strides;  // elements per step along each axis of the view (0: broadcast)
};

// `n`'s layout over the first node at or below it that `stop` accepts or that is no view
// (permute, reshape, slice, broadcast_to). Nullopt where a view on the way is not a pattern
// of strides: a flip, a reshape that merges axes the views below have moved apart, an empty
// value.
std::optional<StridedLayout> LayoutOverViews(const Node& n,
                                             absl::FunctionRef<bool(const Node&)> stop);

// Axes of a layout as memory steps through them: `axes` (outermost first) without those of
// extent 1 or stride 0, neighbours that step as one (the outer's stride the inner's times the
// inner's extent) merged into one axis.
struct MemoryAxis {
  int64_t extent = 1, stride = 0;
  std::vector<int> axes;  // the layout's axes it merges, outermost first
};
std::vector<MemoryAxis> MemoryAxes(const Shape& shape, const std::vector<int64_t>& strides,
                                   const std::vector<int>& axes);

}  // namespace tessel

#endif  // TESSEL_CORE_STRIDED_VIEW_H_
