#include "core/tensor.h"

#include <cstdint>

#include "core/backend.h"
#include "core/element.h"
#include "core/error.h"
#include "core/realize.h"

namespace tessel {

const Node& Tensor::node() const { return *CheckedNode(*this, "Tensor"); }

const NodePtr& CheckedNode(const Tensor& t, absl::string_view op) {
  if (!t.defined()) ThrowOpError(op, "the tensor is empty (default-constructed)");
  return t.node_ptr();
}

const void* HostData(const Tensor& t, std::vector<uint8_t>* storage) {
  const Node& n = t.node();
  if (!n.realized()) realize({t});
  const BufferPtr& buffer = n.buffer();
  if (buffer->device() == Device::kCPU) return buffer->data();
  storage->resize(buffer->bytes());
  absl::StatusOr<Backend*> backend = GetBackend(buffer->device());
  ThrowIfError(backend.status());
  ThrowIfError((*backend)->Download(*buffer, storage->data()));
  return storage->data();
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  const Node& n = node();
  std::vector<uint8_t> host;
  const void* data = HostData(*this, &host);
  std::vector<T> out(n.shape().numel());
  VisitDType(n.dtype(), [&](auto zero) {
    using S = decltype(zero);
    const S* src = static_cast<const S*>(data);
    for (size_t i = 0; i < out.size(); ++i) out[i] = ConvertElement<T>(src[i]);
  });
  return out;
}

template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<double> Tensor::to_vector<double>() const;
template std::vector<int32_t> Tensor::to_vector<int32_t>() const;
template std::vector<int64_t> Tensor::to_vector<int64_t>() const;
template std::vector<uint8_t> Tensor::to_vector<uint8_t>() const;
template std::vector<bool> Tensor::to_vector<bool>() const;

}  // namespace tessel
