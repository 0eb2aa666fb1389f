#include "tests/test_util.h"

#include <cmath>
#include <random>

namespace tessel::testing {

std::vector<float> RandomValues(int64_t n, uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

Sample RandomTensor(const Shape& shape, DType dtype, uint64_t seed, float lo, float hi) {
  Tensor t = from_vector(RandomValues(shape.numel(), seed, lo, hi), shape, dtype, Device::kCPU);
  std::vector<double> values = t.to_vector<double>();
  return {t, values};
}

std::vector<int64_t> Unravel(int64_t i, const Shape& shape) {
  std::vector<int64_t> index(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    index[d] = i % shape[d];
    i /= shape[d];
  }
  return index;
}

int64_t BroadcastSource(const std::vector<int64_t>& out_index, const Shape& in) {
  const int offset = static_cast<int>(out_index.size()) - in.rank();
  int64_t flat = 0;
  for (int d = 0; d < in.rank(); ++d) {
    const int64_t i = in[d] == 1 ? 0 : out_index[offset + d];
    flat = flat * in[d] + i;
  }
  return flat;
}

std::vector<double> ReferenceBinary(const std::vector<double>& a, const Shape& sa,
                                    const std::vector<double>& b, const Shape& sb,
                                    const std::function<double(double, double)>& f) {
  const Shape out = *BroadcastShapes(sa, sb);
  std::vector<double> want(out.numel());
  for (int64_t i = 0; i < out.numel(); ++i) {
    const std::vector<int64_t> index = Unravel(i, out);
    want[i] = f(a[BroadcastSource(index, sa)], b[BroadcastSource(index, sb)]);
  }
  return want;
}

double Tolerance(DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return 1e-13;
    case DType::kF32:
      return 2e-6;
    case DType::kF16:
      return 2e-3;  // 2 ulp of a 10-bit mantissa
    case DType::kBF16:
      return 1.6e-2;  // 2 ulp of a 7-bit mantissa
    default:
      return 0;
  }
}

void ExpectClose(const std::vector<float>& got, const std::vector<double>& want, double rtol,
                 double atol) {
  ExpectClose(std::vector<double>(got.begin(), got.end()), want, rtol, atol);
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double rtol,
                 double atol) {
  ASSERT_EQ(got.size(), want.size());
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    const bool ok = (std::isnan(w) && std::isnan(g)) || (std::isinf(w) && g == w) ||
                    std::abs(g - w) <= atol + rtol * std::abs(w);
    if (!ok && reported++ < 5) {
      ADD_FAILURE() << "element " << i << ": got " << g << ", want " << w << " (rtol " << rtol
                    << ", atol " << atol << ")";
    }
  }
}

void ExpectError(const std::function<void()>& f, const std::vector<std::string>& pieces) {
  try {
    f();
    ADD_FAILURE() << "no tessel::Error was thrown";
  } catch (const Error& e) {
    const std::string message = e.what();
    for (const std::string& piece : pieces) {
      EXPECT_NE(message.find(piece), std::string::npos)
          << "message '" << message << "' lacks '" << piece << "'";
    }
  }
}

}  // namespace tessel::testing
