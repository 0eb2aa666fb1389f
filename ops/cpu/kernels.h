// The CPU backend's kernels, one family per op category: Node + input buffers -> buffer.
// The CPU backend is tessel's reference: straightforward, Eigen where it pays.
#ifndef TESSEL_OPS_CPU_KERNELS_H_
#define TESSEL_OPS_CPU_KERNELS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "core/buffer.h"
#include "core/node.h"

namespace tessel::cpu {

using InputBuffers = std::vector<const Buffer*>;

absl::StatusOr<BufferPtr> RunSource(const Node& node);
absl::StatusOr<BufferPtr> RunElementwise(const Node& node, const InputBuffers& inputs);
absl::StatusOr<BufferPtr> RunReduce(const Node& node, const InputBuffers& inputs);
// Views and concat; reshape shares its input's buffer (buffers are never written twice).
absl::StatusOr<BufferPtr> RunStructure(const Node& node, const std::vector<BufferPtr>& inputs);
absl::StatusOr<BufferPtr> RunMatmul(const Node& node, const InputBuffers& inputs);
absl::StatusOr<BufferPtr> RunScan(const Node& node, const InputBuffers& inputs);
absl::StatusOr<BufferPtr> RunSort(const Node& node, const InputBuffers& inputs);
// Gather and scatter_add; an index out of range is an OutOfRange status naming the caller.
absl::StatusOr<BufferPtr> RunIndex(const Node& node, const InputBuffers& inputs);

}  // namespace tessel::cpu

#endif  // TESSEL_OPS_CPU_KERNELS_H_
