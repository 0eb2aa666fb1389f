// Value ranges: bounds on the integer values a node can hold, known when it is recorded.
// Tensor -> Graph: each node carries the range its op guarantees (core/node.h).
//
// [ Note -- value ranges ]
// A gather or scatter on the GPU checks every index and records the first bad one, and
// realize() then waits for its kernels to report it (api.md: realize throws). Most indices
// cannot be bad: token ids and targets copied from the host (their bounds are read as they
// are copied), positions from arange or a sort, values brought in range by remainder. Each
// node of an integer or bool dtype carries the closed interval its values lie in where the op
// guarantees one (interval arithmetic over its inputs' ranges, exact: a result that could leave
// its dtype, and so wrap, has no range). Kernels check only the indices not known to be in
// range (codegen::IndicesInRange), and a realize with no checks does not wait. A node's value
// never changes (assign() writes a new node's value; tensors of the old one keep it), so a
// range stays true for the node's life, realized or not. Memory a user wraps (from_blob) can
// change under tessel: it has no range.
#ifndef TESSEL_CORE_VALUE_RANGE_H_
#define TESSEL_CORE_VALUE_RANGE_H_

#include <cstdint>
#include <optional>

#include "absl/container/inlined_vector.h"
#include "core/dtype.h"
#include "core/op_kind.h"
#include "core/shape.h"

namespace tessel {

class Node;
struct Attrs;

// Every value v of the node satisfies lo <= v <= hi.
struct ValueRange {
  int64_t lo = 0;
  int64_t hi = 0;

  bool Within(int64_t low, int64_t high) const { return lo >= low && hi <= high; }
  friend bool operator==(const ValueRange& a, const ValueRange& b) {
    return a.lo == b.lo && a.hi == b.hi;
  }
};

// The bounds of n elements of `dtype` in host memory; none for floating dtypes and for n = 0.
std::optional<ValueRange> RangeOfHostData(DType dtype, const void* data, int64_t n);

// The range an operation guarantees for its result, from its inputs' ranges; none where it
// guarantees none (floating results, sums, products of matrices, scans, values that could wrap).
std::optional<ValueRange> RangeOfOp(OpKind op, DType dtype, const Shape& shape, const Attrs& attrs,
                                    absl::Span<const Node* const> inputs);

}  // namespace tessel

#endif  // TESSEL_CORE_VALUE_RANGE_H_
