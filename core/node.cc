#include "core/node.h"

#include <atomic>
#include <mutex>
#include <tuple>
#include <utility>

#include "absl/base/casts.h"
#include "absl/container/flat_hash_map.h"

namespace tessel {

bool operator==(const Attrs& a, const Attrs& b) {
  return a.ints == b.ints && absl::bit_cast<uint64_t>(a.value) == absl::bit_cast<uint64_t>(b.value);
}

namespace {

// What makes two recorded operations the same value. `unique` keeps leaves apart.
struct NodeKey {
  OpKind op;
  DType dtype;
  Device device;
  Shape shape;
  Attrs attrs;
  std::vector<uint64_t> input_ids;
  uint64_t unique;

  friend bool operator==(const NodeKey& a, const NodeKey& b) {
    return std::tie(a.op, a.dtype, a.device, a.shape, a.attrs, a.input_ids, a.unique) ==
           std::tie(b.op, b.dtype, b.device, b.shape, b.attrs, b.input_ids, b.unique);
  }
  template <typename H>
  friend H AbslHashValue(H h, const NodeKey& k) {
    return H::combine(std::move(h), k.op, k.dtype, k.device, k.shape, k.attrs, k.input_ids,
                      k.unique);
  }
};

std::atomic<uint64_t> next_id{1};
std::atomic<int64_t> live_nodes{0};

}  // namespace

// The hash-consing table: live nodes by key. Entries hold weak references and are erased
// by the node's destructor, so the table never keeps a graph alive.
class NodeTable {
 public:
  static NodeTable& Get() {
    static NodeTable* table = new NodeTable();  // never destroyed: nodes may outlive main
    return *table;
  }

  NodePtr Intern(NodeKey key, std::vector<NodePtr> inputs, BufferPtr buffer) {
    std::lock_guard<std::mutex> lock(mu_);
    std::weak_ptr<Node>& slot = table_[key];
    if (NodePtr existing = slot.lock()) return existing;
    const uint64_t id = key.unique != 0 ? key.unique : next_id++;
    NodePtr node(new Node(id, key.op, key.dtype, key.device, std::move(key.shape),
                          std::move(key.attrs), std::move(inputs), std::move(buffer)));
    slot = node;
    return node;
  }

  void Forget(const Node& node, uint64_t unique) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = table_.find(KeyOf(node, unique));
    // A node recorded after this one expired may already own the slot: keep it.
    if (it != table_.end() && it->second.expired()) table_.erase(it);
  }

  // Frees a chain of nodes without recursion: a deep graph (a 100,000-op loop) must not
  // overflow the stack when its last handle goes away.
  void ReleaseInputs(std::vector<NodePtr> inputs) {
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

  static NodeKey KeyOf(const Node& node, uint64_t unique) {
    return NodeKey{node.op(),    node.dtype(),    node.device(), node.shape(),
                   node.attrs(), node.input_ids_, unique};
  }

 private:
  std::mutex mu_;
  absl::flat_hash_map<NodeKey, std::weak_ptr<Node>> table_;
};

Node::Node(uint64_t id, OpKind op, DType dtype, Device device, Shape shape, Attrs attrs,
           std::vector<NodePtr> inputs, BufferPtr buffer)
    : id_(id),
      op_(op),
      dtype_(dtype),
      device_(device),
      shape_(std::move(shape)),
      attrs_(std::move(attrs)),
      inputs_(std::move(inputs)),
      buffer_(std::move(buffer)) {
  input_ids_.reserve(inputs_.size());
  for (const NodePtr& in : inputs_) input_ids_.push_back(in->id());
  ++live_nodes;
}

Node::~Node() {
  NodeTable& table = NodeTable::Get();
  table.Forget(*this, op_ == OpKind::kInput ? id_ : 0);
  table.ReleaseInputs(std::move(inputs_));
  --live_nodes;
}

void Node::SetRealized(BufferPtr buffer) {
  buffer_ = std::move(buffer);
  NodeTable::Get().ReleaseInputs(std::move(inputs_));
  inputs_.clear();
}

NodePtr MakeNode(OpKind op, DType dtype, Device device, Shape shape, std::vector<NodePtr> inputs,
                 Attrs attrs) {
  NodeKey key{op, dtype, device, std::move(shape), std::move(attrs), {}, 0};
  key.input_ids.reserve(inputs.size());
  for (const NodePtr& in : inputs) key.input_ids.push_back(in->id());
  return NodeTable::Get().Intern(std::move(key), std::move(inputs), nullptr);
}

NodePtr MakeInputNode(DType dtype, Device device, const Shape& shape, BufferPtr buffer) {
  const uint64_t id = next_id++;
  NodeKey key{OpKind::kInput, dtype, device, shape, {}, {}, id};
  return NodeTable::Get().Intern(std::move(key), {}, std::move(buffer));
}

int64_t LiveNodeCount() { return live_nodes.load(); }

}  // namespace tessel
