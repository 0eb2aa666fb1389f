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

// assign(): the value goes into the assigned tensor's own buffer, where nothing else holds
// that buffer any more (the node realized, its producers dropped: the old value's readers are
// gone). Otherwise the node keeps its new buffer, and whoever still holds the old one keeps
// seeing the old value.
void MoveIntoDestination(Backend& backend, int64_t stream, Node* node, BufferPtr destination) {
  const Buffer& value = *node->buffer();
  if (destination.use_count() != 1 || destination->device() != value.device() ||
      destination->device_index() != value.device_index() ||
      destination->dtype() != value.dtype() || destination->numel() != value.numel()) {
    return;
  }
  absl::StatusOr<bool> copied = backend.CopyInPlace(*destination, value, stream);
  ThrowIfError(copied.status());
  if (*copied) node->ReplaceBuffer(std::move(destination));
}

void RealizeOnDevice(Device device, int index, const std::vector<const Node*>& outputs) {
  Program program = CollectProgram(outputs);
  if (program.outputs.empty()) return;
  program.device_index = index;
  program.stream = CurrentStreamId(device, index);
  absl::StatusOr<Backend*> backend = GetBackend(device);
  ThrowIfError(backend.status());
  absl::StatusOr<std::vector<BufferPtr>> buffers = (*backend)->Run(program);
  ThrowIfError(buffers.status());
  TESSEL_CHECK(buffers->size() == program.outputs.size());
  for (size_t i = 0; i < program.outputs.size(); ++i) {
    Node* node = const_cast<Node*>(program.outputs[i]);
    node->SetRealized(std::move((*buffers)[i]));
    if (BufferPtr destination = node->TakeDestination()) {
      MoveIntoDestination(**backend, program.stream, node, std::move(destination));
    }
  }
}

}  // namespace

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
