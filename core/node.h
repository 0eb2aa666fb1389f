// Node: one operation in the lazily recorded expression graph. Tensor -> Graph.
//
// Nodes are hash-consed: recording an operation whose kind, type, shape, attributes and
// inputs equal those of a live node returns that node, so an equal subexpression recorded
// twice is one node and is computed once. Nodes are identified by a process-wide id that
// never appears in printed or hashed output (the text form renumbers).
#ifndef TESSEL_CORE_NODE_H_
#define TESSEL_CORE_NODE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/casts.h"
#include "absl/container/inlined_vector.h"
#include "core/buffer.h"
#include "core/dtype.h"
#include "core/op_kind.h"
#include "core/shape.h"
#include "core/value_range.h"

namespace tessel {

// Operation parameters, interpreted per OpKind (see core/op_table.def): reduction axes,
// a permutation, {axis, start, end} of a slice, the concat axis, a generator seed, or the
// value of `full`.
struct Attrs {
  std::vector<int64_t> ints;
  double value = 0;

  friend bool operator==(const Attrs& a, const Attrs& b);
  template <typename H>
  friend H AbslHashValue(H h, const Attrs& a);
};

class Node;
using NodePtr = std::shared_ptr<Node>;

// assign()'s bookkeeping on the new value's node: the buffer the value should end up in (the
// assigned tensor's own; null where the tensor had no value yet) and the nodes whose value is
// in it (the tensor's old value: it moves to a buffer of its own first where they are still
// read), both moving to a later assign of the tensor; and the node the assign replaced, for
// an undo, until a realize that computes the value succeeds.
struct AssignTarget {
  BufferPtr destination;
  absl::InlinedVector<std::weak_ptr<Node>, 2> holders;
  NodePtr previous;
};
// A node's operands: held inline (no heap allocation per recorded operation for up to 3).
using NodeInputs = absl::InlinedVector<NodePtr, 3>;

class Node : public std::enable_shared_from_this<Node> {
  struct PassKey {};  // only NodeTable constructs nodes (through make_shared: one allocation)

 public:
  Node(PassKey, uint64_t id, OpKind op, DType dtype, Device device, int device_index, Shape shape,
       Attrs attrs, NodeInputs inputs, BufferPtr buffer, std::optional<ValueRange> range);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  uint64_t id() const { return id_; }
  OpKind op() const { return op_; }
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  // Which device of its kind (set_device); 0 on the CPU.
  int device_index() const { return device_index_; }
  const Shape& shape() const { return shape_; }
  const Attrs& attrs() const { return attrs_; }
  // Bounds on the node's values where its op guarantees them ([ Note -- value ranges ]).
  const std::optional<ValueRange>& range() const { return range_; }

  // The producers; empty once the node is realized.
  const NodeInputs& inputs() const { return inputs_; }
  const Node& input(int i) const { return *inputs_[i]; }

  // A realized node holds its value and acts as a leaf of any graph that uses it. Another
  // thread may realize the node meanwhile (equal work recorded by two threads is one node):
  // the buffer is set once, before the flag that says so, which is read with acquire order;
  // buffer() is valid once realized() is true. (A flag, not an atomic shared_ptr: realize's
  // hot path asks every node of a program.)
  bool realized() const { return realized_.load(std::memory_order_acquire); }
  const BufferPtr& buffer() const { return buffer_; }

  // Stores the value and drops the producers (they may then be freed). Called by realize(),
  // under its lock.
  void SetRealized(BufferPtr buffer);

  // assign(): set when the node is recorded (core/realize.h's SetAssignTarget); realize()
  // takes it, copies the value in and ReplaceBuffer()s, under its lock.
  void SetAssignTarget(std::unique_ptr<AssignTarget> target) { assign_ = std::move(target); }
  std::unique_ptr<AssignTarget> TakeAssignTarget() { return std::move(assign_); }
  AssignTarget* assign_target() { return assign_.get(); }
  bool assigned() const { return assign_ != nullptr; }
  void ReplaceBuffer(BufferPtr buffer) { buffer_ = std::move(buffer); }

  // [ Note -- undone assigns ]
  // A realize that fails undoes the assign()s whose new values it would have computed (its
  // outputs or not) and no realize that ran has computed yet, so that a loop can catch the
  // error and go on from the old values: each such node takes the value its assign replaced,
  // `previous`: its buffer, shared, where it was realized (Undo), else its expression
  // (UndoTo). Nodes recorded from it before then meant the value that never came:
  // ReadsUndoneValue() says so (realize refuses them), and recording the same operation again
  // from the tensor makes a new node instead of finding them.
  void Undo(const NodePtr& previous);
  void UndoTo(NodePtr previous);
  bool ReadsUndoneValue() const;
  // The node whose buffer an Undo shared, while it lives: it holds the old value too.
  NodePtr undone_from() const { return undone_from_.lock(); }

 private:
  friend class NodeTable;

  const uint64_t id_;
  const OpKind op_;
  const DType dtype_;
  const Device device_;
  const int device_index_;
  const Shape shape_;
  const Attrs attrs_;
  std::optional<ValueRange> range_;  // cleared by UndoTo
  // Ids of the inputs at recording time: the hash-consing key outlives `inputs_`.
  absl::InlinedVector<uint64_t, 3> input_ids_;
  NodeInputs inputs_;
  BufferPtr buffer_;
  std::unique_ptr<AssignTarget> assign_;
  std::weak_ptr<Node> undone_from_;
  std::atomic<bool> realized_;
  // The hash of the node's hash-consing key, kept: the table asks for it again when it
  // grows and when the node leaves it.
  size_t key_hash_ = 0;
};

// Records an operation: returns the live node equal to it, or a new one. No checks: ops/
// validates shapes and dtypes before calling this.
NodePtr MakeNode(OpKind op, DType dtype, Device device, Shape shape, NodeInputs inputs,
                 Attrs attrs = {});

// Records an operation as a node of its own, never merged with an equal one (assign()'s
// copies, which carry a destination).
NodePtr MakeUniqueNode(OpKind op, DType dtype, Device device, Shape shape, NodeInputs inputs,
                       Attrs attrs = {});

// A new leaf that holds `buffer` (never merged with another). A null buffer makes a
// placeholder without data (graphs parsed from text): realizing what needs it fails. `range`:
// bounds on the buffer's values, where they are known and the buffer is tessel's alone.
NodePtr MakeInputNode(DType dtype, Device device, const Shape& shape, BufferPtr buffer,
                      std::optional<ValueRange> range = std::nullopt);

// How many nodes are alive (tests check that realized graphs are freed).
int64_t LiveNodeCount();

// Whether `n` is a permute that swaps the last two axes and keeps the others (transpose()).
bool SwapsLastTwoAxes(const Node& n);

// Whether `n` is a view a matmul reads through to its input's memory: a transpose of the last
// two axes, or a reshape that keeps them and regroups only the batch axes (the input's rows
// are then laid out the same, batch after batch).
bool IsMatmulOperandView(const Node& n);

// Whether reduction `n` combines exactly one element into each result: every reduced axis
// has extent 1, or there is none (a rank-0 value), and there are elements. Such a reduction
// is a reshape and a cast; the planner inlines it like elementwise work.
bool IsDegenerateReduction(const Node& n);

// Whether `n` combines no elements at all: a reduction of an empty tensor or a matmul with an
// inner extent of 0. Its value is a constant (0; 1 for a prod; NaN for a mean) that reads nothing.
bool CombinesNothing(const Node& n);

// What computing `n` inline costs a kernel at each position (core/op_table.def's cost, an
// add's 1): a concat evaluates every operand there, so its cost is its operand count.
int InlineCost(const Node& n);

// Whether `n` is a matmul recorded under MatmulPrecision::kTF32 (attribute tf32=1).
bool IsTf32Matmul(const Node& n);
// Whether `n` is a matmul recorded under MatmulPrecision::kHigh (attribute tf32=3).
bool IsSplitTf32Matmul(const Node& n);

template <typename H>
H AbslHashValue(H h, const Attrs& a) {
  // By bits: full(-0.0) and full(0.0) are different values.
  return H::combine(std::move(h), a.ints, absl::bit_cast<uint64_t>(a.value));
}

}  // namespace tessel

#endif  // TESSEL_CORE_NODE_H_
