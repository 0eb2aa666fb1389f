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
  return program;
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
                         BufferPtr destination, const NodePtr& old) {
  const Buffer& value = *node->buffer();
  if (destination->device() != value.device() ||
      destination->device_index() != value.device_index() ||
      destination->dtype() != value.dtype() || destination->numel() != value.numel()) {
    return;
  }
  if (destination.use_count() == 2 && old != nullptr && old->buffer() == destination) {
    const NodePtr copy =
        MakeUniqueNode(OpKind::kCast, old->dtype(), old->device(), old->shape(), {old});
    Program copying = CollectProgram({copy.get()});
    old->ReplaceBuffer(Run(backend, copying, node->device(), program.device_index)[0]);
  }
  if (destination.use_count() != 1) return;
  absl::StatusOr<bool> copied = backend.CopyInPlace(*destination, value, program.stream);
  ThrowIfError(copied.status());
  if (*copied) node->ReplaceBuffer(std::move(destination));
}

// A failed program's assigns go back ([ Note -- undone assigns ]): each assigned value it
// would have committed takes the target's previous value, which nothing has written (the
// destination is written only once the program ran, and not while another node holds it).
void UndoAssigns(const Program& program) {
  for (const Node* output : program.outputs) {
    Node* node = const_cast<Node*>(output);
    if (!node->has_destination()) continue;
    auto [destination, previous] = node->TakeDestination();
    node->Undo(previous != nullptr ? previous->buffer() : std::move(destination));
  }
}

void RefuseUndoneReads(const Program& program) {
  for (const Node* node : program.nodes) {
    if (!node->ReadsUndoneValue()) continue;
    ThrowOpError("realize", "a ", OpName(node->op()), " ", node->shape().ToString(),
                 " was recorded from a value that assign() gave, which a failed realize undid "
                 "(the assigned tensor holds its previous value again): record it again");
  }
}

void RealizeOnDevice(Device device, int index, const std::vector<const Node*>& outputs) {
  Program program = CollectProgram(outputs);
  if (program.outputs.empty()) return;
  RefuseUndoneReads(program);
  absl::StatusOr<Backend*> backend = GetBackend(device);
  ThrowIfError(backend.status());
  std::vector<BufferPtr> buffers;
  try {
    buffers = Run(**backend, program, device, index);
  } catch (...) {
    UndoAssigns(program);
    throw;
  }
  // Every output first: one not yet realized would still hold an assigned tensor's old value.
  for (size_t i = 0; i < program.outputs.size(); ++i) {
    const_cast<Node*>(program.outputs[i])->SetRealized(std::move(buffers[i]));
  }
  for (const Node* output : program.outputs) {
    Node* node = const_cast<Node*>(output);
    auto [destination, old] = node->TakeDestination();
    if (destination) MoveIntoDestination(**backend, program, node, std::move(destination), old);
  }
}

}  // namespace

void SetAssignDestination(const NodePtr& target, Node& value) {
  std::unique_lock<std::shared_mutex> lock(GraphMutex());
  if (target->realized()) {
    value.SetDestination(target->buffer(), target);
  } else if (target->has_destination()) {
    auto [destination, previous] = target->TakeDestination();
    value.SetDestination(std::move(destination), previous);
  }
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
