// Value ranges ([ Note -- value ranges ], core/value_range.h): each is checked against the
// values the CPU backend computes, and the ops that guarantee none give none.
#include "core/value_range.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

constexpr Device kCpu = Device::kCPU;

Tensor I64(const std::vector<int64_t>& v) {
  return from_vector(v, {static_cast<int64_t>(v.size())}, DType::kI64, kCpu);
}

std::optional<ValueRange> RangeOf(const Tensor& t) { return t.node().range(); }

// The range is known, and every value the CPU computes lies in it.
void ExpectHolds(const Tensor& t, int64_t lo, int64_t hi) {
  ASSERT_TRUE(RangeOf(t).has_value());
  EXPECT_EQ(*RangeOf(t), (ValueRange{lo, hi}));
  for (int64_t v : cast(t, DType::kI64).to_vector<int64_t>()) {
    EXPECT_GE(v, lo);
    EXPECT_LE(v, hi);
  }
}

TEST(ValueRangeTest, HostDataAndItsCopies) {
  const Tensor ids = I64({5, -2, 9, 0});
  ExpectHolds(ids, -2, 9);
  ExpectHolds(from_vector(std::vector<int32_t>{7, 3}, {2}, DType::kI32, kCpu), 3, 7);
  ExpectHolds(from_vector(std::vector<bool>{true, false}, {2}, DType::kBool, kCpu), 0, 1);
  EXPECT_FALSE(RangeOf(from_vector({1.0f, 2.0f}, {2})).has_value());  // floats: none
  EXPECT_FALSE(RangeOf(I64({})).has_value());
  ExpectHolds(to(ids, kCpu), -2, 9);
  // A value realized keeps its range (its producers are gone).
  const Tensor shifted = ids + 1;
  realize({shifted});
  ExpectHolds(shifted, -1, 10);
  // Memory a user owns may change: no range.
  std::vector<int64_t> owned = {1, 2};
  EXPECT_FALSE(RangeOf(from_blob(owned.data(), {2}, DType::kI64, kCpu)).has_value());
}

TEST(ValueRangeTest, SourcesAndPositions) {
  ExpectHolds(arange(10, DType::kI64, kCpu), 0, 9);
  ExpectHolds(full({3}, 4.0, DType::kI32, kCpu), 4, 4);
  ExpectHolds(full({3}, 2.5, DType::kI64, kCpu), 2, 2);  // stored toward zero
  const Tensor x = from_vector({3.0f, 1.0f, 2.0f, 5.0f, 4.0f, 0.0f}, {2, 3});
  ExpectHolds(argsort(x, 1), 0, 2);
  ExpectHolds(topk(x, 2, 0).second, 0, 1);
  ExpectHolds(gt(x, 2.0), 0, 1);
  ExpectHolds(argmax(x, 1), 0, 2);
  ExpectHolds(argmin(from_vector({NAN, 1.0f, 2.0f}, {3}), 0), 0, 2);
}

TEST(ValueRangeTest, ArithmeticIsExactOrUnknown) {
  const Tensor a = I64({-3, 4, 0}), b = I64({2, 5, 1});
  ExpectHolds(a + b, -2, 9);
  ExpectHolds(a - b, -8, 3);
  ExpectHolds(a * b, -15, 20);
  ExpectHolds(-a, -4, 3);
  ExpectHolds(abs(a), 0, 4);
  ExpectHolds(relu(a), 0, 4);
  ExpectHolds(maximum(a, b), 1, 5);
  ExpectHolds(minimum(a, b), -3, 4);
  ExpectHolds(where(gt(a, 0), a, b), -3, 5);
  ExpectHolds(clamp(a, 0, 2), 0, 2);
  ExpectHolds(cast(a, DType::kI32), -3, 4);
  // Values that could wrap have no range.
  const Tensor big = from_vector(std::vector<int32_t>{std::numeric_limits<int32_t>::max(), 0}, {2},
                                 DType::kI32, kCpu);
  EXPECT_FALSE(RangeOf(big + 1).has_value());
  EXPECT_FALSE(RangeOf(cast(I64({int64_t{1} << 40}), DType::kI32)).has_value());
  EXPECT_FALSE(RangeOf(cast(from_vector({1.0f}, {1}), DType::kI64)).has_value());
  EXPECT_FALSE(RangeOf(cumsum(a, 0)).has_value());
}

TEST(ValueRangeTest, RemaindersBringValuesInRange) {
  const Tensor a = I64({-7, 12, 3, -1, 0}), d = I64({5, 3, 4, 5, 2});
  ExpectHolds(remainder(a, 5.0), 0, 4);  // Python's %: the divisor's sign
  ExpectHolds(remainder(a, -5.0), -4, 0);
  ExpectHolds(remainder(a, d), 0, 4);
  ExpectHolds(fmod(a, 5.0), -4, 4);  // C's: the dividend's sign
  ExpectHolds(fmod(abs(a), d), 0, 4);
  ExpectHolds(remainder(abs(a), 100.0), 0, 12);
  ExpectHolds(remainder(a, I64({0, 0, 0, 0, 0})), 0, 0);  // a divisor of 0 gives 0
}

TEST(ValueRangeTest, ViewsReductionsAndPicks) {
  const Tensor a = from_vector(std::vector<int64_t>{4, -1, 6, 2}, {2, 2}, DType::kI64, kCpu);
  ExpectHolds(transpose(a), -1, 6);
  ExpectHolds(reshape(a, {4}), -1, 6);
  ExpectHolds(slice(a, 0, 1, 2), -1, 6);  // the input's bounds, not the slice's own
  ExpectHolds(concat({a, a + 10}, 0), -1, 16);
  ExpectHolds(max(a, {1}), -1, 6);
  ExpectHolds(sum(a, {1}), -2, 12);
  ExpectHolds(gather(a, 1, from_vector(std::vector<int64_t>{1, 0}, {2, 1}, DType::kI64, kCpu)), -1,
              6);
  EXPECT_FALSE(RangeOf(prod(a, {1})).has_value());
}

}  // namespace
}  // namespace tessel
