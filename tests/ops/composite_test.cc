// Composites against textbook formulas in double, and the api.md example end to end.
#include <Eigen/Core>
#include <cmath>

#include "core/graph_text.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::ExpectClose;
using testing::RandomTensor;
using testing::Tolerance;

double Gelu(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

// Softmax (or log-softmax) of each row of a rows x cols matrix.
std::vector<double> RowSoftmax(const std::vector<double>& x, int64_t rows, int64_t cols,
                               bool log_form) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = &x[r * cols];
    double m = row[0], s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, row[c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(row[c] - m);
    for (int64_t c = 0; c < cols; ++c) {
      y[r * cols + c] = log_form ? row[c] - m - std::log(s) : std::exp(row[c] - m) / s;
    }
  }
  return y;
}

TEST(CompositeTest, ActivationsMatchFormulas) {
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
    auto x = RandomTensor({257}, dtype, 4, -5, 5);
    std::vector<double> g, ge, s;
    for (double v : x.values) {
      g.push_back(Gelu(v));
      ge.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
      s.push_back(v / (1 + std::exp(-v)));
    }
    const double rtol = std::max(Tolerance(dtype), 1e-5);
    EXPECT_EQ(gelu(x.tensor).dtype(), dtype);
    ExpectClose(gelu(x.tensor).to_vector<float>(), g, rtol, 1e-6);
    ExpectClose(gelu_erf(x.tensor).to_vector<float>(), ge, rtol, 1e-6);
    ExpectClose(silu(x.tensor).to_vector<float>(), s, rtol, 1e-6);
  }
}

TEST(CompositeTest, SoftmaxAlongAnyAxisAndLargeInputs) {
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    auto x = RandomTensor({6, 50}, dtype, 8, -1000, 1000);  // exp would overflow unshifted
    ExpectClose(softmax(x.tensor).to_vector<float>(), RowSoftmax(x.values, 6, 50, false),
                Tolerance(dtype), 1e-7);
    ExpectClose(log_softmax(x.tensor, 1).to_vector<float>(), RowSoftmax(x.values, 6, 50, true),
                Tolerance(dtype), 1e-4);
  }
  // Along axis 0: the same as softmax of the transpose.
  auto x = RandomTensor({7, 3}, DType::kF32, 9);
  const std::vector<float> by_axis0 =
      transpose(softmax(transpose(x.tensor), -1)).to_vector<float>();
  ExpectClose(softmax(x.tensor, 0).to_vector<float>(),
              std::vector<double>(by_axis0.begin(), by_axis0.end()), 1e-6);
}

// Over an axis of no elements the result has none either (attention over no keys), where
// the max inside would refuse the empty axis.
TEST(CompositeTest, SoftmaxOverAnEmptyAxis) {
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    const Tensor x = zeros({1, 3, 0}, dtype, Device::kCPU);
    for (const Tensor& y : {softmax(x, 2), log_softmax(x, -1)}) {
      EXPECT_EQ(y.shape(), (Shape{1, 3, 0}));
      EXPECT_EQ(y.dtype(), dtype);
      EXPECT_TRUE(y.to_vector<float>().empty());
    }
  }
}

TEST(CompositeTest, LayerNormAndRmsNormMatchFormulas) {
  const int64_t rows = 5, cols = 64;
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    auto x = RandomTensor({rows, cols}, dtype, 1, -3, 5);
    auto w = RandomTensor({cols}, dtype, 2);
    auto b = RandomTensor({cols}, dtype, 3);
    std::vector<double> ln(rows * cols), rms(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
      double mu = 0, var = 0, ms = 0;
      for (int64_t c = 0; c < cols; ++c) mu += x.values[r * cols + c] / cols;
      for (int64_t c = 0; c < cols; ++c) {
        const double v = x.values[r * cols + c];
        var += (v - mu) * (v - mu) / cols;
        ms += v * v / cols;
      }
      for (int64_t c = 0; c < cols; ++c) {
        const double v = x.values[r * cols + c];
        ln[r * cols + c] = (v - mu) / std::sqrt(var + 1e-5) * w.values[c] + b.values[c];
        rms[r * cols + c] = v / std::sqrt(ms + 1e-6) * w.values[c];
      }
    }
    ExpectClose(layer_norm(x.tensor, w.tensor, b.tensor).to_vector<float>(), ln, Tolerance(dtype),
                1e-5);
    ExpectClose(rms_norm(x.tensor, w.tensor).to_vector<float>(), rms, Tolerance(dtype), 1e-5);
  }
  // Weight and bias are optional.
  Tensor x = from_vector({1, 3}, {1, 2}, DType::kF32, Device::kCPU);
  ExpectClose(layer_norm(x, Tensor(), Tensor(), 0).to_vector<float>(), {-1, 1}, 1e-6);
}

TEST(CompositeTest, LinearIsMatmulPlusBias) {
  Tensor x = from_vector({1, 2}, {1, 2}, DType::kF32, Device::kCPU);
  Tensor w = from_vector({1, 0, 2, 0, 1, 3}, {2, 3}, DType::kF32, Device::kCPU);
  Tensor b = from_vector({10, 20, 30}, {3}, DType::kF32, Device::kCPU);
  EXPECT_EQ(linear(x, w, b).to_vector<float>(), (std::vector<float>{11, 22, 38}));
  EXPECT_EQ(linear(x, w, Tensor()).to_vector<float>(), (std::vector<float>{1, 2, 8}));
}

TEST(CompositeTest, CompositesAreBuiltFromPrimitives) {
  Tensor x = from_vector({1, 2}, {1, 2}, DType::kF32, Device::kCPU);
  const std::string text = PrintGraph({softmax(x)});
  for (const char* op : {"max", "sub", "exp", "sum", "div"}) {
    EXPECT_NE(text.find(std::string(" = ") + op + " "), std::string::npos) << op << "\n" << text;
  }
}

// The example of api.md, on the CPU, checked against a reference for a sample of rows.
TEST(CompositeTest, ApiExampleOnCpu) {
  Tensor x = randn({4096, 1024}, /*seed=*/1, DType::kBF16, Device::kCPU);
  Tensor w = randn({1024, 4096}, 2, DType::kBF16, Device::kCPU);
  Tensor b = randn({4096}, 3, DType::kBF16, Device::kCPU);
  Tensor y = softmax(gelu(matmul(x, w) + b));
  EXPECT_EQ(y.shape(), (Shape{4096, 4096}));
  EXPECT_EQ(y.dtype(), DType::kBF16);
  const std::vector<float> out = y.to_vector<float>();

  const std::vector<float> xs = x.to_vector<float>(), ws = w.to_vector<float>(),
                           bs = b.to_vector<float>();
  for (int64_t r : {0, 1, 777, 4095}) {
    // Each stage rounds to bf16 as the graph does (matmul, add, gelu, softmax outputs).
    auto bf16 = [](double v) {
      return static_cast<double>(static_cast<float>(Eigen::bfloat16(static_cast<float>(v))));
    };
    std::vector<double> row(4096);
    for (int64_t c = 0; c < 4096; ++c) {
      double acc = 0;
      for (int64_t k = 0; k < 1024; ++k) acc += double(xs[r * 1024 + k]) * ws[k * 4096 + c];
      row[c] = bf16(Gelu(bf16(bf16(acc) + bs[c])));
    }
    std::vector<double> want = RowSoftmax(row, 1, 4096, false);
    std::vector<float> got(out.begin() + r * 4096, out.begin() + (r + 1) * 4096);
    double total = 0;
    for (float v : got) total += v;
    EXPECT_NEAR(total, 1.0, 0.02) << "row " << r;
    // The matmul's bf16 rounding can flip one ulp of a logit (about 0.4%): allow for it
    // where exp magnifies it.
    ExpectClose(got, want, 0.05, 1e-6);
  }
}

}  // namespace
}  // namespace tessel
