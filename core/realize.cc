#include "core/realize.h"

#include <mutex>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "core/error.h"

namespace tessel {

Program CollectProgram(const std::vector<const Node*>& outputs) {
  Program program;
  program.nodes = TopologicalOrder(outputs, /*include_realized=*/false);
  absl::flat_hash_set<const Node*> seen;
  for (const Node* out : outputs) {
    if (!out->realized() && seen.insert(out).second) program.outputs.push_back(out);
  }
  return program;
}

namespace {

// Realizations mutate nodes (buffers in, producers out); one at a time keeps that simple.
std::mutex& RealizeMutex() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}

void RealizeOnDevice(Device device, const std::vector<const Node*>& outputs) {
  Program program = CollectProgram(outputs);
  if (program.outputs.empty()) return;
  absl::StatusOr<Backend*> backend = GetBackend(device);
  ThrowIfError(backend.status());
  absl::StatusOr<std::vector<BufferPtr>> buffers = (*backend)->Run(program);
  ThrowIfError(buffers.status());
  TESSEL_CHECK(buffers->size() == program.outputs.size());
  for (size_t i = 0; i < program.outputs.size(); ++i) {
    const_cast<Node*>(program.outputs[i])->SetRealized(std::move((*buffers)[i]));
  }
}

}  // namespace

void realize(const std::vector<Tensor>& outputs) {
  std::vector<const Node*> cpu, cuda;
  for (const Tensor& t : outputs) {
    const Node* node = CheckedNode(t, "realize").get();
    (node->device() == Device::kCPU ? cpu : cuda).push_back(node);
  }
  std::lock_guard<std::mutex> lock(RealizeMutex());
  if (!cpu.empty()) RealizeOnDevice(Device::kCPU, cpu);
  if (!cuda.empty()) RealizeOnDevice(Device::kCUDA, cuda);
}

}  // namespace tessel
