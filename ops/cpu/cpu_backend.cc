// The CPU backend: interprets a Program node by node with the kernels of ops/cpu, holding
// each intermediate buffer only until its last consumer has run.
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/backend.h"
#include "core/stats.h"
#include "core/status_macros.h"
#include "ops/cpu/kernels.h"

namespace tessel::cpu {
namespace {

absl::StatusOr<BufferPtr> Evaluate(const Node& node, const std::vector<BufferPtr>& inputs) {
  InputBuffers raw;
  for (const BufferPtr& b : inputs) raw.push_back(b.get());
  switch (GetOpInfo(node.op()).category) {
    case OpCategory::kSource:
      return RunSource(node);
    case OpCategory::kElementwise:
      return RunElementwise(node, raw);
    case OpCategory::kReduce:
      return RunReduce(node, raw);
    case OpCategory::kView:
    case OpCategory::kConcat:
      return RunStructure(node, inputs);
    case OpCategory::kMatmul:
      return RunMatmul(node, raw);
    case OpCategory::kScan:
      return RunScan(node, raw);
    case OpCategory::kSort:
      return RunSort(node, raw);
    case OpCategory::kIndex:
    case OpCategory::kScatter:
      return RunIndex(node, raw);
  }
  return absl::InternalError("unknown op category");
}

// Host memory that tessel does not own (from_blob).
class ExternalHostBuffer : public Buffer {
 public:
  ExternalHostBuffer(void* data, DType dtype, int64_t numel, std::function<void(void*)> release)
      : Buffer(Device::kCPU, dtype, numel), data_(data), release_(std::move(release)) {}
  ~ExternalHostBuffer() override {
    if (release_) release_(data_);
  }
  void* data() override { return data_; }

 private:
  void* data_;
  std::function<void(void*)> release_;
};

class CpuBackend : public Backend {
 public:
  Device device() const override { return Device::kCPU; }
  absl::Status Available() override { return absl::OkStatus(); }
  MemoryStats GetMemoryStats(int) override { return HostMemoryStats(); }
  absl::Status EmptyCache(int) override { return absl::OkStatus(); }  // nothing is cached
  void SetMemoryLimit(int, int64_t bytes) override { SetHostMemoryLimit(bytes); }

  // Evaluate, with the host running out of memory in a kernel's scratch (a source's values
  // in double, Eigen's temporaries) an error like the buffers' own (HostBuffer), not an
  // exception no caller of tessel expects.
  static absl::StatusOr<BufferPtr> EvaluateWithin(const Node& node,
                                                  const std::vector<BufferPtr>& inputs) {
    try {
      return Evaluate(node, inputs);
    } catch (const std::bad_alloc&) {
      return OutOfHostMemory(node);
    } catch (const std::length_error&) {  // a scratch vector past max_size (2^60 values)
      return OutOfHostMemory(node);
    }
  }
  static absl::Status OutOfHostMemory(const Node& node) {
    return absl::ResourceExhaustedError(
        absl::StrCat("out of host memory computing ", OpName(node.op()), " of ",
                     DTypeName(node.dtype()), node.shape().ToString(), " on the CPU"));
  }

  absl::StatusOr<std::vector<BufferPtr>> Run(const Program& program) override {
    // Uses left for each computed value: consumers in the program, plus one per output.
    absl::flat_hash_map<const Node*, int> uses;
    for (const Node* node : program.nodes) {
      for (const NodePtr& in : node->inputs()) {
        if (!in->realized()) ++uses[in.get()];
      }
    }
    for (const Node* out : program.outputs) ++uses[out];

    absl::flat_hash_map<const Node*, BufferPtr> values;
    std::vector<BufferPtr> inputs;
    for (const Node* node : program.nodes) {
      inputs.clear();
      for (const NodePtr& in : node->inputs()) {
        inputs.push_back(in->realized() ? in->buffer() : values.at(in.get()));
      }
      TESSEL_ASSIGN_OR_RETURN(BufferPtr result, EvaluateWithin(*node, inputs));
      ++GetStats().nodes_evaluated;
      values[node] = std::move(result);
      for (const NodePtr& in : node->inputs()) {
        if (!in->realized() && --uses[in.get()] == 0) values.erase(in.get());
      }
    }
    std::vector<BufferPtr> outputs;
    for (const Node* out : program.outputs) outputs.push_back(values.at(out));
    return outputs;
  }

  absl::StatusOr<BufferPtr> Upload(DType dtype, int64_t numel, const void* host) override {
    auto buffer = NewHostBuffer(dtype, numel);
    std::memcpy(buffer->data(), host, buffer->bytes());
    return BufferPtr(buffer);
  }

  absl::StatusOr<bool> CopyInPlace(Buffer& destination, const Buffer& source, int64_t) override {
    std::memcpy(destination.data(), source.data(), source.bytes());
    return true;
  }

  absl::StatusOr<BufferPtr> WrapMemory(void* data, DType dtype, int64_t numel,
                                       std::function<void(void*)> release) override {
    return BufferPtr(std::make_shared<ExternalHostBuffer>(data, dtype, numel, std::move(release)));
  }

  absl::Status Download(const Buffer& buffer, void* host) override {
    std::memcpy(host, buffer.data(), buffer.bytes());
    return absl::OkStatus();
  }
};

// Registered before main() runs; the library target is alwayslink so this survives linking.
const bool kRegistered = [] {
  RegisterBackend(std::make_unique<CpuBackend>());
  return true;
}();

}  // namespace
}  // namespace tessel::cpu
