#include "core/realize.h"

#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "core/error.h"
#include "core/execution.h"

namespace tessel {

Program CollectProgram(const std::vector<const Node*>& outputs) {
  Program program;
  program.nodes = TopologicalOrder(outputs, /*include_realized=*/false);
  // Usually a few outputs: a linear search, with no set to allocate on every realize.
  absl::flat_hash_set<const Node*> seen;
  const bool many = outputs.size() > 16;
  for (const Node* out : outputs) {
    if (out->realized()) continue;
    const bool first = many ? seen.insert(out).second
                            : absl::c_find(program.outputs, out) == program.outputs.end();
    if (first) program.outputs.push_back(out);
  }
  // An assign's value that the program computes anyway is an output too, realized and moved
  // into its tensor by this realize: a loop that assigns its parameters and realizes only its
  // loss would otherwise carry every step's update as an expression, each realize computing
  // them all again (a graph and a time per step that grow without bound).
  for (const Node* n : program.nodes) {
    if (!n->assigned()) continue;
    if (absl::c_find(program.outputs, n) == program.outputs.end()) program.outputs.push_back(n);
  }
  return program;
}

void RefuseUndoneReads(const Program& program, absl::string_view op) {
  for (const Node* node : program.nodes) {
    if (!node->ReadsUndoneValue()) continue;
    ThrowOpError(op, "a ", OpName(node->op()), " ", node->shape().ToString(),
                 " was recorded from a value that assign() gave, which a failed realize undid "
                 "(the assigned tensor holds its previous value again): record it again");
  }
}

namespace {

std::shared_mutex& GraphMutex() {
  static std::shared_mutex* mu = new std::shared_mutex();
  return *mu;
}

// Runs `program` where its nodes live; one buffer per output.
std::vector<BufferPtr> Run(Backend& backend, Program& program, Device device, int index) {
  program.device_index = index;
  program.stream = CurrentStreamId(device, index);
  absl::StatusOr<std::vector<BufferPtr>> buffers = backend.Run(program);
  ThrowIfError(buffers.status());
  TESSEL_CHECK(buffers->size() == program.outputs.size());
  return *std::move(buffers);
}

// assign(): the value goes into the assigned tensor's own buffer. Where the tensor's old
// value is still read (by a tensor, or an expression not yet realized), the old value first
// moves to a buffer of its own, copied on the same stream. Where anything else holds the
// buffer, or the backend cannot copy in order, the node keeps its new buffer and the holders
// keep seeing the old value.
void MoveIntoDestination(Backend& backend, const Program& program, Node* node,
                         AssignTarget& target) {
  BufferPtr& destination = target.destination;
  const Buffer& value = *node->buffer();
  if (destination == nullptr || destination->device() != value.device() ||
      destination->device_index() != value.device_index() ||
      destination->dtype() != value.dtype() || destination->numel() != value.numel()) {
    return;
  }
  absl::InlinedVector<NodePtr, 2> old;  // the old value's nodes still alive
  for (const std::weak_ptr<Node>& holder : target.holders) {
    NodePtr h = holder.lock();
    if (h != nullptr && h->buffer() == destination) old.push_back(std::move(h));
  }
  if (!old.empty() && destination.use_count() == 1 + static_cast<long>(old.size())) {
    const Node& o = *old[0];
    const NodePtr copy = MakeUniqueNode(OpKind::kCast, o.dtype(), o.device(), o.shape(), {old[0]});
    Program copying = CollectProgram({copy.get()});
    BufferPtr moved;
    try {
      moved = Run(backend, copying, node->device(), program.device_index)[0];
    } catch (const Error&) {
      return;  // no memory for the old value's copy (the limit): the value stays apart
    }
    for (const NodePtr& h : old) h->ReplaceBuffer(moved);
  }
  if (destination.use_count() != 1) return;
  absl::StatusOr<bool> copied = backend.CopyInPlace(*destination, value, program.stream);
  ThrowIfError(copied.status());
  if (*copied) node->ReplaceBuffer(std::move(destination));
}

// A failed program's assigns go back ([ Note -- undone assigns ]): each assigned value it
// would have computed takes the target's previous value: the value of its node where one
// lives, else the destination, which nothing has written (it is written only once a program
// ran, and not while another node holds it); or the previous expression. In producer order,
// so that what an undo frees was visited before.
void UndoAssigns(const Program& program) {
  for (const Node* n : program.nodes) {
    Node* node = const_cast<Node*>(n);
    const AssignTarget* target = node->assign_target();
    if (target == nullptr || target->previous == nullptr) continue;  // computed before
    const NodePtr previous = node->TakeAssignTarget()->previous;
    if (previous->realized()) {
      node->Undo(previous);
    } else {
      node->UndoTo(previous);
    }
  }
}

// A program that ran computed its assigned values: none of them is undone later, and the
// nodes they replaced are not held for that (one so held would look still read).
void KeepAssigns(const Program& program) {
  for (const Node* n : program.nodes) {
    if (AssignTarget* target = const_cast<Node*>(n)->assign_target()) target->previous.reset();
  }
}

void RealizeOnDevice(Device device, int index, const std::vector<const Node*>& outputs) {
  Program program = CollectProgram(outputs);
  if (program.outputs.empty()) return;
  absl::StatusOr<Backend*> backend = GetBackend(device);
  ThrowIfError(backend.status());
  std::vector<BufferPtr> buffers;
  try {
    RefuseUndoneReads(program, "realize");
    buffers = Run(**backend, program, device, index);
  } catch (...) {
    UndoAssigns(program);
    throw;
  }
  KeepAssigns(program);
  // Every output first: one not yet realized would still hold an assigned tensor's old value.
  for (size_t i = 0; i < program.outputs.size(); ++i) {
    const_cast<Node*>(program.outputs[i])->SetRealized(std::move(buffers[i]));
  }
  for (const Node* output : program.outputs) {
    Node* node = const_cast<Node*>(output);
    std::unique_ptr<AssignTarget> target = node->TakeAssignTarget();
    if (target != nullptr) MoveIntoDestination(**backend, program, node, *target);
  }
}

}  // namespace

void SetAssignTarget(const NodePtr& target, Node& value) {
  std::unique_lock<std::shared_mutex> lock(GraphMutex());
  auto t = std::make_unique<AssignTarget>();
  t->previous = target;
  if (target->realized()) {
    t->destination = target->buffer();
    t->holders.push_back(target);
    // After an undo, the value the target replaced may share its buffer.
    if (NodePtr shared = target->undone_from(); shared && shared->buffer() == t->destination) {
      t->holders.push_back(shared);
    }
  } else if (AssignTarget* before = target->assign_target()) {
    // Assigned before, not yet realized: the buffer goes to the newer value; the older keeps
    // what it replaced, for its own undo.
    t->destination = std::move(before->destination);
    t->holders = std::move(before->holders);
  }
  value.SetAssignTarget(std::move(t));
}

std::shared_lock<std::shared_mutex> LockGraphForReading() {
  return std::shared_lock<std::shared_mutex>(GraphMutex());
}

void realize(const std::vector<Tensor>& outputs) {
  // One program per device, in the order devices first appear.
  std::vector<std::pair<std::pair<Device, int>, std::vector<const Node*>>> groups;
  for (const Tensor& t : outputs) {
    const Node* node = CheckedNode(t, "realize").get();
    const std::pair<Device, int> place(node->device(), node->device_index());
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == place; });
    if (it == groups.end()) it = groups.insert(groups.end(), {place, {}});
    it->second.push_back(node);
  }
  std::unique_lock<std::shared_mutex> lock(GraphMutex());
  for (const auto& [place, nodes] : groups) RealizeOnDevice(place.first, place.second, nodes);
}

}  // namespace tessel
