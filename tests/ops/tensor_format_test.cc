// to_string and operator<<: PyTorch's layout, checked against hand-written expected text.
#include "ops/tensor_format.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

Tensor Cpu(std::vector<float> v, Shape shape, DType dtype = DType::kF32) {
  return from_vector(v, std::move(shape), dtype, Device::kCPU);
}

TEST(TensorFormatTest, MatrixWithFourDecimals) {
  EXPECT_EQ(to_string(Cpu({0.5f, -1.25f, 2, 3}, {2, 2})),
            "tensor([[ 0.5000, -1.2500],\n"
            "        [ 2.0000,  3.0000]])");
}

TEST(TensorFormatTest, WholeNumbersIntegersAndBools) {
  EXPECT_EQ(to_string(Cpu({1, 2, 3}, {3})), "tensor([1., 2., 3.])");
  EXPECT_EQ(to_string(from_vector(std::vector<int32_t>{1, -2, 3}, {3}, DType::kI32, Device::kCPU)),
            "tensor([ 1, -2,  3], dtype=i32)");
  EXPECT_EQ(to_string(from_vector(std::vector<bool>{true, false}, {2}, DType::kBool, Device::kCPU)),
            "tensor([ True, False], dtype=bool)");
  EXPECT_EQ(to_string(Cpu({0.5f, 2}, {2}, DType::kBF16)), "tensor([0.5000, 2.0000], dtype=bf16)");
}

TEST(TensorFormatTest, ScientificWhenValuesSpanDecades) {
  EXPECT_EQ(to_string(Cpu({1e-5f, 1}, {2})), "tensor([1.0000e-05, 1.0000e+00])");
  EXPECT_EQ(to_string(Cpu({1.5f, 2e9f}, {2})), "tensor([1.5000e+00, 2.0000e+09])");
}

TEST(TensorFormatTest, SpecialValuesAlign) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(to_string(Cpu({1.5f, inf, -inf, NAN}, {4})),
            "tensor([1.5000,    inf,   -inf,    nan])");
}

TEST(TensorFormatTest, ScalarsEmptyAndHigherRanks) {
  EXPECT_EQ(to_string(full({}, 1.5, DType::kF32, Device::kCPU)), "tensor(1.5000)");
  EXPECT_EQ(to_string(zeros({0, 3}, DType::kF16, Device::kCPU)),
            "tensor([], shape=[0,3], dtype=f16)");
  EXPECT_EQ(to_string(Cpu({1, 2, 3, 4}, {2, 1, 2})),
            "tensor([[[1., 2.]],\n"
            "\n"
            "        [[3., 4.]]])");
}

TEST(TensorFormatTest, SummarizesPastMaxElements) {
  std::vector<float> v(2000);
  for (int i = 0; i < 2000; ++i) v[i] = static_cast<float>(i);
  EXPECT_EQ(to_string(Cpu(v, {2000})), "tensor([   0.,    1.,    2.,  ..., 1997., 1998., 1999.])");
  EXPECT_EQ(to_string(Cpu(v, {100, 20})),
            "tensor([[   0.,    1.,    2.,  ...,   17.,   18.,   19.],\n"
            "        [  20.,   21.,   22.,  ...,   37.,   38.,   39.],\n"
            "        [  40.,   41.,   42.,  ...,   57.,   58.,   59.],\n"
            "        ...,\n"
            "        [1940., 1941., 1942.,  ..., 1957., 1958., 1959.],\n"
            "        [1960., 1961., 1962.,  ..., 1977., 1978., 1979.],\n"
            "        [1980., 1981., 1982.,  ..., 1997., 1998., 1999.]])");
  EXPECT_EQ(to_string(Cpu({1, 2, 3, 4, 5, 6, 7, 8}, {8}), 4),
            "tensor([1., 2., 3.,  ..., 6., 7., 8.])");
}

// A summary of a tensor not yet realized computes only its edges (slices of the expression),
// and reads as the realized tensor's does: every rank, short and long axes, integers.
TEST(TensorFormatTest, SummariesOfLazyTensorsComputeOnlyTheEdges) {
  std::vector<float> v(2 * 100 * 20);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 997) - 300;
  for (const Shape& shape : {Shape{4000}, Shape{200, 20}, Shape{2, 100, 20}, Shape{20, 2, 100}}) {
    const Tensor x = Cpu(v, shape);
    for (DType dtype : {DType::kF32, DType::kI64}) {
      const Tensor lazy = cast(x * 0.5, dtype), same = cast(x / 2.0, dtype);  // apart nodes
      realize({same});
      EXPECT_EQ(to_string(lazy, 1000), to_string(same, 1000)) << shape;
      EXPECT_FALSE(lazy.realized());
    }
  }
}

TEST(TensorFormatTest, StreamRealizesAndPrintsValues) {
  Tensor y = Cpu({1, 2}, {2}) * 2.0;  // recorded, not computed
  std::ostringstream os;
  os << y;
  EXPECT_EQ(os.str(), "tensor([2., 4.])");
  EXPECT_TRUE(y.realized());
  std::ostringstream empty;
  empty << Tensor();
  EXPECT_EQ(empty.str(), "Tensor()");
}

}  // namespace
}  // namespace tessel
