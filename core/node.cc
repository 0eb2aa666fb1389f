#include "core/node.h"

#include <atomic>
#include <mutex>
#include <utility>

#include "absl/base/casts.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/types/span.h"
#include "core/execution.h"

namespace tessel {

bool operator==(const Attrs& a, const Attrs& b) {
  return a.ints == b.ints && absl::bit_cast<uint64_t>(a.value) == absl::bit_cast<uint64_t>(b.value);
}

namespace {

std::atomic<uint64_t> next_id{1};
std::atomic<int64_t> live_nodes{0};

// The undone assigned values ([ Note -- undone assigns ]): each one's id and the first id
// recorded after its undo. Rare (a realize failed), so a lookup first asks `any`. An entry
// leaves with its node: once it is gone, nothing can record from it again.
class UndoneValues {
 public:
  static UndoneValues& Get() {
    static UndoneValues* values = new UndoneValues();
    return *values;
  }
  void Add(uint64_t id, uint64_t first_later) {
    std::lock_guard<std::mutex> lock(mu_);
    undone_[id] = first_later;
    any_.store(true, std::memory_order_release);
  }
  void Remove(uint64_t id) {
    if (!any_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(mu_);
    undone_.erase(id);
    if (undone_.empty()) any_.store(false, std::memory_order_release);
  }
  // Whether node `id`, recorded from `input_ids`, read one of them before its undo.
  bool ReadBeforeUndo(uint64_t id, absl::Span<const uint64_t> input_ids) {
    if (!any_.load(std::memory_order_acquire)) return false;
    std::lock_guard<std::mutex> lock(mu_);
    for (uint64_t in : input_ids) {
      auto it = undone_.find(in);
      if (it != undone_.end() && id < it->second) return true;
    }
    return false;
  }

 private:
  std::mutex mu_;
  absl::flat_hash_map<uint64_t, uint64_t> undone_;
  std::atomic<bool> any_{false};
};

// What makes two recorded operations the same value, viewed in place (no copies): from
// MakeNode's arguments when looking up, from a node's fields when it is in the table.
// `unique` keeps leaves apart.
struct KeyView {
  OpKind op;
  DType dtype;
  Device device;
  int device_index;
  absl::Span<const int64_t> dims;
  absl::Span<const int64_t> ints;
  uint64_t value_bits;
  absl::Span<const uint64_t> input_ids;
  uint64_t unique;

  friend bool operator==(const KeyView& a, const KeyView& b) {
    return a.op == b.op && a.dtype == b.dtype && a.device == b.device &&
           a.device_index == b.device_index && a.dims == b.dims && a.ints == b.ints &&
           a.value_bits == b.value_bits && a.input_ids == b.input_ids && a.unique == b.unique;
  }
  template <typename H>
  friend H AbslHashValue(H h, const KeyView& k) {
    return H::combine(std::move(h), k.op, k.dtype, k.device, k.device_index, k.dims, k.ints,
                      k.value_bits, k.input_ids, k.unique);
  }
};

}  // namespace

// The hash-consing table: the live nodes, found by their key. It holds plain pointers:
// a node leaves it in its destructor, so the table never keeps a graph alive.
class NodeTable {
 public:
  static NodeTable& Get() {
    static NodeTable* table = new NodeTable();  // never destroyed: nodes may outlive main
    return *table;
  }

  static KeyView ViewOf(const Node& n) {
    return KeyView{n.op_,
                   n.dtype_,
                   n.device_,
                   n.device_index_,
                   absl::MakeConstSpan(n.shape_.dims()),
                   n.attrs_.ints,
                   absl::bit_cast<uint64_t>(n.attrs_.value),
                   n.input_ids_,
                   n.op_ == OpKind::kInput ? n.id_ : 0};
  }

  // `range`: a leaf's; other nodes get the range their op guarantees.
  NodePtr Intern(const KeyView& key, Shape shape, Attrs attrs, NodeInputs inputs, BufferPtr buffer,
                 std::optional<ValueRange> range) {
    const size_t hash = Hash()(key);  // outside the lock
    // Declared before the lock: a node passed over may be freed as this returns, and its
    // destructor takes the lock.
    NodePtr existing;
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = nodes_.find(key, hash); it != nodes_.end()) {
      existing = (*it)->weak_from_this().lock();
      if (existing != nullptr && !existing->ReadsUndoneValue()) return existing;
      // Dying, or recorded from an undone value: its destructor will find the slot taken or
      // empty.
      nodes_.erase(it);
    }
    if (key.op != OpKind::kInput) {
      absl::InlinedVector<const Node*, 4> operands;
      for (const NodePtr& in : inputs) operands.push_back(in.get());
      range = RangeOfOp(key.op, key.dtype, shape, attrs, operands);
    }
    const uint64_t id = key.unique != 0 ? key.unique : next_id++;
    NodePtr node = std::make_shared<Node>(Node::PassKey{}, id, key.op, key.dtype, key.device,
                                          key.device_index, std::move(shape), std::move(attrs),
                                          std::move(inputs), std::move(buffer), range);
    node->key_hash_ = hash;
    nodes_.insert(node.get());
    return node;
  }

  // UndoTo: `node` (unique, so that no lookup can find it by its operands) reads `input`.
  void Rewire(Node& node, NodePtr input) {
    NodeInputs old;
    {
      std::lock_guard<std::mutex> lock(mu_);  // lookups read the node's operand ids
      old = std::move(node.inputs_);
      node.inputs_ = {input};
      node.input_ids_ = {input->id()};
      node.range_.reset();  // the previous value's bounds are not the new one's
    }
    ReleaseInputs(std::move(old));
  }

  void Forget(const Node& node) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = nodes_.find(&node);
    // A node recorded after this one started dying may hold the key now: keep it.
    if (it != nodes_.end() && *it == &node) nodes_.erase(it);
  }

  // Frees a chain of nodes without recursion: a deep graph (a 100,000-op loop) must not
  // overflow the stack when its last handle goes away.
  void ReleaseInputs(NodeInputs inputs) {
    while (!inputs.empty()) {
      NodePtr p = std::move(inputs.back());
      inputs.pop_back();
      {
        // Under the lock, nobody can revive `p` from the table, so a count of one is exact.
        std::lock_guard<std::mutex> lock(mu_);
        if (p.use_count() == 1) {
          for (NodePtr& in : p->inputs_) inputs.push_back(std::move(in));
          p->inputs_.clear();
        }
      }
    }
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(const KeyView& k) const { return absl::Hash<KeyView>()(k); }
    size_t operator()(const Node* n) const { return n->key_hash_; }
  };
  struct Eq {
    using is_transparent = void;
    // A node leaving the table finds itself: no key comparison (a hot path of freeing).
    bool operator()(const Node* a, const Node* b) const {
      return a == b || ViewOf(*a) == ViewOf(*b);
    }
    bool operator()(const Node* a, const KeyView& b) const { return ViewOf(*a) == b; }
    bool operator()(const KeyView& a, const Node* b) const { return a == ViewOf(*b); }
  };

  std::mutex mu_;
  absl::flat_hash_set<Node*, Hash, Eq> nodes_;
};

Node::Node(PassKey, uint64_t id, OpKind op, DType dtype, Device device, int device_index,
           Shape shape, Attrs attrs, NodeInputs inputs, BufferPtr buffer,
           std::optional<ValueRange> range)
    : id_(id),
      op_(op),
      dtype_(dtype),
      device_(device),
      device_index_(device_index),
      shape_(std::move(shape)),
      attrs_(std::move(attrs)),
      range_(range),
      inputs_(std::move(inputs)),
      buffer_(std::move(buffer)),
      realized_(buffer_ != nullptr) {
  for (const NodePtr& in : inputs_) input_ids_.push_back(in->id());
  ++live_nodes;
}

Node::~Node() {
  NodeTable& table = NodeTable::Get();
  table.Forget(*this);
  table.ReleaseInputs(std::move(inputs_));
  UndoneValues::Get().Remove(id_);
  --live_nodes;
}

void Node::SetRealized(BufferPtr buffer) {
  buffer_ = std::move(buffer);
  realized_.store(true, std::memory_order_release);
  NodeTable::Get().ReleaseInputs(std::move(inputs_));
  inputs_.clear();
}

void Node::Undo(const NodePtr& previous) {
  // The node that owns the buffer, where `previous` was itself undone onto it.
  const NodePtr root = previous->undone_from();
  undone_from_ = root != nullptr && root->buffer() == previous->buffer() ? root : previous;
  SetRealized(previous->buffer());
  UndoneValues::Get().Add(id_, next_id.load());
}

void Node::UndoTo(NodePtr previous) {
  NodeTable::Get().Rewire(*this, std::move(previous));
  UndoneValues::Get().Add(id_, next_id.load());
}

bool Node::ReadsUndoneValue() const { return UndoneValues::Get().ReadBeforeUndo(id_, input_ids_); }

namespace {

// By reference: the public functions' by-value operands are moved only once, into the node.
NodePtr Record(OpKind op, DType dtype, Device device, Shape&& shape, NodeInputs&& inputs,
               Attrs&& attrs, uint64_t unique) {
  absl::InlinedVector<uint64_t, 4> ids;
  for (const NodePtr& in : inputs) ids.push_back(in->id());
  // Sources live on the current device; everything else where its operands are (ops/
  // checks that they agree).
  const int index = !inputs.empty() ? inputs[0]->device_index() : CurrentIndexOf(device);
  const KeyView key{op,
                    dtype,
                    device,
                    index,
                    absl::MakeConstSpan(shape.dims()),
                    attrs.ints,
                    absl::bit_cast<uint64_t>(attrs.value),
                    ids,
                    unique};
  return NodeTable::Get().Intern(key, std::move(shape), std::move(attrs), std::move(inputs),
                                 nullptr, std::nullopt);
}

}  // namespace

NodePtr MakeNode(OpKind op, DType dtype, Device device, Shape shape, NodeInputs inputs,
                 Attrs attrs) {
  return Record(op, dtype, device, std::move(shape), std::move(inputs), std::move(attrs), 0);
}

NodePtr MakeUniqueNode(OpKind op, DType dtype, Device device, Shape shape, NodeInputs inputs,
                       Attrs attrs) {
  return Record(op, dtype, device, std::move(shape), std::move(inputs), std::move(attrs),
                next_id++);
}

NodePtr MakeInputNode(DType dtype, Device device, const Shape& shape, BufferPtr buffer,
                      std::optional<ValueRange> range) {
  const uint64_t id = next_id++;
  const int index = buffer != nullptr ? buffer->device_index() : CurrentIndexOf(device);
  const KeyView key{
      OpKind::kInput, dtype, device, index, absl::MakeConstSpan(shape.dims()), {}, 0, {}, id};
  return NodeTable::Get().Intern(key, shape, {}, {}, std::move(buffer), range);
}

int64_t LiveNodeCount() { return live_nodes.load(); }

bool IsDegenerateReduction(const Node& n) {
  if (GetOpInfo(n.op()).category != OpCategory::kReduce || n.inputs().empty()) return false;
  const Shape& in = n.input(0).shape();
  if (in.numel() == 0) return false;
  for (int64_t axis : n.attrs().ints) {
    if (in[static_cast<int>(axis)] != 1) return false;
  }
  return true;
}

int InlineCost(const Node& n) {
  if (n.op() == OpKind::kConcat) return static_cast<int>(n.inputs().size());
  return GetOpInfo(n.op()).cost;
}

bool CombinesNothing(const Node& n) {
  const OpCategory category = GetOpInfo(n.op()).category;
  if (n.inputs().empty()) return false;
  if (category == OpCategory::kReduce) return n.input(0).shape().numel() == 0;
  if (category != OpCategory::kMatmul) return false;
  const Shape& a = n.input(0).shape();
  return a[a.rank() - 1] == 0;
}

bool IsTf32Matmul(const Node& n) {
  return n.op() == OpKind::kMatmul && !n.attrs().ints.empty() && n.attrs().ints[0] == 1;
}

bool IsSplitTf32Matmul(const Node& n) {
  return n.op() == OpKind::kMatmul && !n.attrs().ints.empty() && n.attrs().ints[0] == 3;
}

bool SwapsLastTwoAxes(const Node& n) {
  if (n.op() != OpKind::kPermute) return false;
  const std::vector<int64_t>& perm = n.attrs().ints;
  const int64_t r = static_cast<int64_t>(perm.size());
  for (int64_t i = 0; i + 2 < r; ++i) {
    if (perm[i] != i) return false;
  }
  return r >= 2 && perm[r - 2] == r - 1 && perm[r - 1] == r - 2;
}

bool IsMatmulOperandView(const Node& n) {
  if (SwapsLastTwoAxes(n)) return true;
  if (n.op() != OpKind::kReshape) return false;
  const Shape &out = n.shape(), &in = n.input(0).shape();
  return out.rank() >= 2 && in.rank() >= 2 && out[out.rank() - 1] == in[in.rank() - 1] &&
         out[out.rank() - 2] == in[in.rank() - 2];
}

}  // namespace tessel
