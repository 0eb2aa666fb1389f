// Tensor: the user's handle to a node of the lazily recorded graph (api.md). Copies share
// the node, so realizing one copy realizes them all.
#ifndef TESSEL_CORE_TENSOR_H_
#define TESSEL_CORE_TENSOR_H_

#include <cstdint>
#include <ostream>
#include <vector>

#include "core/dtype.h"
#include "core/node.h"
#include "core/shape.h"

namespace tessel {

class Tensor {
 public:
  // An empty handle: "no tensor" where an operation takes an optional one (layer_norm's
  // weight and bias). Any other use throws tessel::Error.
  Tensor() = default;
  explicit Tensor(NodePtr node) : node_(std::move(node)) {}

  bool defined() const { return node_ != nullptr; }
  const Shape& shape() const { return node().shape(); }
  DType dtype() const { return node().dtype(); }
  Device device() const { return node().device(); }
  int64_t numel() const { return shape().numel(); }
  int rank() const { return shape().rank(); }
  bool realized() const { return node().realized(); }

  // Realizes the tensor if needed and copies its elements to the host as T (float,
  // double, int32_t, int64_t, uint8_t or bool), converting the element type.
  template <typename T>
  std::vector<T> to_vector() const;

  const Node& node() const;
  const NodePtr& node_ptr() const { return node_; }

 private:
  NodePtr node_;
};

// Realizes `t` and returns its elements' bytes in host memory: the buffer itself on the CPU,
// else a copy downloaded into `storage`.
const void* HostData(const Tensor& t, std::vector<uint8_t>* storage);

// The handle's node, or Error naming `op` when the handle is empty.
const NodePtr& CheckedNode(const Tensor& t, absl::string_view op);

}  // namespace tessel

#endif  // TESSEL_CORE_TENSOR_H_
