// Helpers for tests: random data, straightforward reference broadcasting, and comparisons
// with per-dtype tolerances.
#ifndef TESSEL_TESTS_TEST_UTIL_H_
#define TESSEL_TESTS_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel::testing {

// Uniform values in [lo, hi), reproducible from `seed` (independent of tessel's generator).
std::vector<float> RandomValues(int64_t n, uint64_t seed, float lo = -2, float hi = 2);

// A tensor of `dtype` from random values, and the values it actually holds (rounded).
struct Sample {
  Tensor tensor;
  std::vector<double> values;
};
Sample RandomTensor(const Shape& shape, DType dtype, uint64_t seed, float lo = -2, float hi = 2);

// Row-major multi-index of flat index i in `shape`.
std::vector<int64_t> Unravel(int64_t i, const Shape& shape);
// Flat index in `in` of the element that NumPy broadcasting reads for output index `out`.
int64_t BroadcastSource(const std::vector<int64_t>& out_index, const Shape& in);

// want[i] = f(a[src_a(i)], b[src_b(i)]) over the broadcast shape.
std::vector<double> ReferenceBinary(const std::vector<double>& a, const Shape& sa,
                                    const std::vector<double>& b, const Shape& sb,
                                    const std::function<double(double, double)>& f);

// Relative tolerance for results stored in `dtype`: a few units in its last place.
double Tolerance(DType dtype);

// |got - want| <= atol + rtol * |want| elementwise (NaN matches NaN, inf matches inf).
void ExpectClose(const std::vector<float>& got, const std::vector<double>& want, double rtol,
                 double atol = 0);
void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, double rtol,
                 double atol = 0);

// Runs `f` and checks it throws tessel::Error whose message contains every piece.
void ExpectError(const std::function<void()>& f, const std::vector<std::string>& pieces);

}  // namespace tessel::testing

#endif  // TESSEL_TESTS_TEST_UTIL_H_
