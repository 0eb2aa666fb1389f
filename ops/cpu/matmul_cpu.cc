// Matmul through Eigen's GEMM, one call per batch entry; operands are converted to float
// once (f16/bf16 accumulate in float; f64 in double) and broadcast batch entries are shared,
// not copied.
#include <cmath>
#include <cstdint>

#include "absl/base/casts.h"
#include "ops/cpu/kernels.h"
#include "ops/cpu/strided.h"

namespace tessel::cpu {
namespace {

template <typename C>
using RowMatrix = Eigen::Matrix<C, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Shape BatchOf(const Shape& s) {
  return Shape(absl::MakeConstSpan(s.dims()).subspan(0, s.rank() - 2));
}

// For every output batch entry, the index of the operand's matrix that feeds it.
std::vector<int64_t> BatchIndices(const Shape& operand, const Shape& out) {
  const Shape batch = BatchOf(out);
  std::vector<int64_t> indices(batch.numel());
  ForEachStrided(batch, BroadcastStrides(BatchOf(operand), batch), 0,
                 [&](int64_t o, int64_t i) { indices[o] = i; });
  return indices;
}

// f32 as the tensor cores read it under TF32: its 10 leading mantissa bits, truncated (wgmma
// reads f32 operands so; tessel's other GPU kernels truncate alike); NaN unchanged.
float TruncateToTf32(float x) {
  if (std::isnan(x)) return x;
  return absl::bit_cast<float>(absl::bit_cast<uint32_t>(x) & 0xffffe000u);
}

template <typename C>
BufferPtr Multiply(const Node& node, const InputBuffers& inputs) {
  const Shape& sa = node.input(0).shape();
  const Shape& sb = node.input(1).shape();
  const int64_t m = sa[sa.rank() - 2], k = sa[sa.rank() - 1], n = sb[sb.rank() - 1];
  std::vector<C> a = LoadBroadcast<C>(*inputs[0], sa, sa);
  std::vector<C> b = LoadBroadcast<C>(*inputs[1], sb, sb);
  if constexpr (std::is_same_v<C, float>) {
    if (IsTf32Matmul(node)) {
      for (std::vector<float>* v : {&a, &b}) {
        for (float& x : *v) x = TruncateToTf32(x);
      }
    }
  }
  const std::vector<int64_t> ia = BatchIndices(sa, node.shape());
  const std::vector<int64_t> ib = BatchIndices(sb, node.shape());
  std::vector<C> c(node.shape().numel());
  for (size_t batch = 0; batch < ia.size(); ++batch) {
    Eigen::Map<const RowMatrix<C>> ma(a.data() + ia[batch] * m * k, m, k);
    Eigen::Map<const RowMatrix<C>> mb(b.data() + ib[batch] * k * n, k, n);
    Eigen::Map<RowMatrix<C>> mc(c.data() + batch * m * n, m, n);
    mc.noalias() = ma * mb;
  }
  return StoreAs<C>(node.dtype(), c.data(), static_cast<int64_t>(c.size()));
}

}  // namespace

absl::StatusOr<BufferPtr> RunMatmul(const Node& node, const InputBuffers& inputs) {
  if (node.dtype() == DType::kF64) return Multiply<double>(node, inputs);
  return Multiply<float>(node, inputs);
}

}  // namespace tessel::cpu
