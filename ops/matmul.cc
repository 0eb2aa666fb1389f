#include "ops/matmul.h"

#include <atomic>
#include <utility>

#include "absl/strings/strip.h"
#include "ops/record.h"
#include "ops/structure.h"

namespace tessel {
namespace {

std::atomic<MatmulPrecision> g_precision{MatmulPrecision::kHighest};

using ops_internal::CommonDevice;
using ops_internal::Describe;
using ops_internal::Record;

// a and b of rank 2 or more whose inner sizes agree (matmul checks them).
Tensor MatmulOfMatrices(const Tensor& a, const Tensor& b) {
  const Shape batch_a(absl::MakeConstSpan(a.shape().dims()).subspan(0, a.rank() - 2));
  const Shape batch_b(absl::MakeConstSpan(b.shape().dims()).subspan(0, b.rank() - 2));
  absl::StatusOr<Shape> batch = BroadcastShapes(batch_a, batch_b);
  if (!batch.ok()) {
    ThrowOpError("matmul", "batch dimensions of ", Describe(a), " and ", Describe(b),
                 " do not broadcast (", batch.status().message(), ")");
  }
  Shape::Dims dims = batch->dims();
  dims.push_back(a.shape()[a.rank() - 2]);
  dims.push_back(b.shape()[b.rank() - 1]);
  const DType dtype = Promote(a.dtype(), b.dtype());
  // tf32=1: operands read as TF32; tf32=3: three TF32 products (see set_matmul_precision)
  Attrs attrs;
  if (dtype == DType::kF32 && matmul_precision() != MatmulPrecision::kHighest) {
    attrs.ints = {matmul_precision() == MatmulPrecision::kTF32 ? 1 : 3};
  }
  return Record(OpKind::kMatmul, dtype, a.device(), Shape(dims), {a.node_ptr(), b.node_ptr()},
                std::move(attrs));
}

}  // namespace

void set_matmul_precision(MatmulPrecision precision) { g_precision = precision; }
MatmulPrecision matmul_precision() { return g_precision; }

Tensor matmul(const Tensor& a, const Tensor& b) {
  OpErrorScope scope("matmul");
  CommonDevice("matmul", {&a, &b});
  if (!IsFloating(a.dtype()) || !IsFloating(b.dtype())) {
    ThrowOpError("matmul", "takes floating operands, got ", Describe(a), " x ", Describe(b));
  }
  if (a.rank() == 0 || b.rank() == 0) {
    ThrowOpError("matmul", "does not take scalars: ", Describe(a), " x ", Describe(b));
  }
  // NumPy: a vector on the left is a row, on the right a column; the added axis is dropped.
  // Its inner size is checked here, so that the error names the operands as given.
  const int64_t k = a.shape()[a.rank() - 1], b_k = b.shape()[b.rank() == 1 ? 0 : b.rank() - 2];
  if (k != b_k) {
    ThrowOpError("matmul", "inner sizes differ: ", Describe(a), " x ", Describe(b), " (", k, " vs ",
                 b_k, ")");
  }
  if (a.rank() == 1 && b.rank() == 1) {
    return reshape(MatmulOfMatrices(reshape(a, {1, a.numel()}), reshape(b, {b.numel(), 1})), {});
  }
  if (a.rank() == 1) {
    Tensor out = MatmulOfMatrices(reshape(a, {1, a.numel()}), b);
    Shape::Dims dims = out.shape().dims();
    dims.erase(dims.end() - 2);
    return reshape(out, Shape(dims));
  }
  if (b.rank() == 1) {
    Tensor out = MatmulOfMatrices(a, reshape(b, {b.numel(), 1}));
    Shape::Dims dims = out.shape().dims();
    dims.pop_back();
    return reshape(out, Shape(dims));
  }
  return MatmulOfMatrices(a, b);
}

std::vector<Tensor> grouped_matmul(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) {
    ThrowOpError("grouped_matmul", "takes lists of equal length, got ", a.size(), " and ", b.size(),
                 " operands");
  }
  std::vector<Tensor> out;
  for (size_t i = 0; i < a.size(); ++i) {
    try {
      out.push_back(matmul(a[i], b[i]));
    } catch (const InternalError&) {
      throw;
    } catch (const Error& e) {
      // matmul's own message, under the caller's name and the problem's index.
      ThrowOpError("grouped_matmul", "problem ", i, " (a[", i, "] x b[", i,
                   "]): ", absl::StripPrefix(e.what(), "tessel::"));
    }
  }
  return out;
}

}  // namespace tessel
