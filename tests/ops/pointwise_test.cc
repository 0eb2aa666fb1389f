// Every elementwise op against std:: reference math on the same (rounded) inputs, for every
// dtype, with broadcasting of size-1 and rank-0 operands.
#include <cmath>
#include <functional>
#include <limits>

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::ExpectClose;
using testing::RandomTensor;
using testing::ReferenceBinary;
using testing::Tolerance;

constexpr DType kFloats[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64};

// Math in float registers differs from double by a few float ulps; f64's by a few of its own.
double MathTolerance(DType d) { return std::max(Tolerance(d), d == DType::kF64 ? 1e-13 : 1e-5); }

struct UnaryCase {
  const char* name;
  std::function<Tensor(const Tensor&)> op;
  std::function<double(double)> ref;
  float lo, hi;
};

std::vector<UnaryCase> UnaryCases() {
  return {
      {"neg", [](const Tensor& x) { return neg(x); }, [](double v) { return -v; }, -3, 3},
      {"abs", [](const Tensor& x) { return abs(x); }, [](double v) { return std::abs(v); }, -3, 3},
      {"exp", [](const Tensor& x) { return exp(x); }, [](double v) { return std::exp(v); }, -5, 5},
      {"log", [](const Tensor& x) { return log(x); }, [](double v) { return std::log(v); }, 0.1f,
       9},
      {"sqrt", [](const Tensor& x) { return sqrt(x); }, [](double v) { return std::sqrt(v); }, 0,
       9},
      {"rsqrt", [](const Tensor& x) { return rsqrt(x); }, [](double v) { return 1 / std::sqrt(v); },
       0.1f, 9},
      {"sin", [](const Tensor& x) { return sin(x); }, [](double v) { return std::sin(v); }, -3, 3},
      {"cos", [](const Tensor& x) { return cos(x); }, [](double v) { return std::cos(v); }, -3, 3},
      {"tanh", [](const Tensor& x) { return tanh(x); }, [](double v) { return std::tanh(v); }, -4,
       4},
      {"erf", [](const Tensor& x) { return erf(x); }, [](double v) { return std::erf(v); }, -3, 3},
      {"sigmoid", [](const Tensor& x) { return sigmoid(x); },
       [](double v) { return 1 / (1 + std::exp(-v)); }, -8, 8},
      {"relu", [](const Tensor& x) { return relu(x); }, [](double v) { return v < 0 ? 0 : v; }, -3,
       3},
  };
}

TEST(PointwiseTest, UnaryOpsMatchReferenceMath) {
  for (const UnaryCase& c : UnaryCases()) {
    for (DType dtype : kFloats) {
      SCOPED_TRACE(std::string(c.name) + " " + std::string(DTypeName(dtype)));
      auto x = RandomTensor({3, 37}, dtype, 11, c.lo, c.hi);
      Tensor y = c.op(x.tensor);
      EXPECT_EQ(y.dtype(), dtype);
      std::vector<double> want;
      for (double v : x.values) want.push_back(c.ref(v));
      ExpectClose(y.to_vector<double>(), want, MathTolerance(dtype), 1e-6);
    }
  }
}

struct BinaryCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> op;
  std::function<double(double, double)> ref;
};

std::vector<BinaryCase> BinaryCases() {
  return {
      {"add", [](auto& a, auto& b) { return a + b; }, [](double a, double b) { return a + b; }},
      {"sub", [](auto& a, auto& b) { return a - b; }, [](double a, double b) { return a - b; }},
      {"mul", [](auto& a, auto& b) { return a * b; }, [](double a, double b) { return a * b; }},
      {"div", [](auto& a, auto& b) { return a / b; }, [](double a, double b) { return a / b; }},
      {"pow", [](auto& a, auto& b) { return pow(abs(a), b); },
       [](double a, double b) { return std::pow(std::abs(a), b); }},
      {"maximum", [](auto& a, auto& b) { return maximum(a, b); },
       [](double a, double b) { return std::max(a, b); }},
      {"minimum", [](auto& a, auto& b) { return minimum(a, b); },
       [](double a, double b) { return std::min(a, b); }},
  };
}

// Shape pairs covering equal shapes, size-1 axes on either side, rank-0 and rank growth.
const std::vector<std::pair<Shape, Shape>>& BroadcastPairs() {
  static const auto* pairs = new std::vector<std::pair<Shape, Shape>>{
      {{4, 5}, {4, 5}}, {{4, 5}, {5}},       {{4, 1}, {1, 5}},
      {{}, {3, 2}},     {{2, 3, 1}, {3, 4}}, {{1}, {6}},
  };
  return *pairs;
}

TEST(PointwiseTest, BinaryOpsBroadcastAndMatchReference) {
  for (const BinaryCase& c : BinaryCases()) {
    for (DType dtype : kFloats) {
      for (const auto& [sa, sb] : BroadcastPairs()) {
        SCOPED_TRACE(std::string(c.name) + " " + std::string(DTypeName(dtype)) + " " +
                     sa.ToString() + " " + sb.ToString());
        auto a = RandomTensor(sa, dtype, 1, 0.5f, 3);
        auto b = RandomTensor(sb, dtype, 2, 0.5f, 3);
        Tensor y = c.op(a.tensor, b.tensor);
        EXPECT_EQ(y.shape(), *BroadcastShapes(sa, sb));
        ExpectClose(y.to_vector<double>(), ReferenceBinary(a.values, sa, b.values, sb, c.ref),
                    MathTolerance(dtype));
      }
    }
  }
}

TEST(PointwiseTest, ScalarsOnEitherSide) {
  auto x = RandomTensor({5}, DType::kBF16, 3);
  Tensor y = 2.0 - x.tensor * 0.5 + 1.0 / (x.tensor + 10.0);
  EXPECT_EQ(y.dtype(), DType::kBF16);  // the scalar takes the tensor's dtype
  std::vector<double> want;
  for (double v : x.values) want.push_back(2 - v * 0.5 + 1 / (v + 10));
  ExpectClose(y.to_vector<float>(), want, 3 * Tolerance(DType::kBF16));
}

TEST(PointwiseTest, MixedDtypesPromote) {
  Tensor i = from_vector(std::vector<int32_t>{1, 2, 3}, {3}, DType::kI32, Device::kCPU);
  Tensor h = from_vector({0.5f, 0.25f, 2}, {3}, DType::kBF16, Device::kCPU);
  Tensor f = from_vector({1, 1, 1}, {3}, DType::kF32, Device::kCPU);
  EXPECT_EQ((i + h).dtype(), DType::kBF16);
  EXPECT_EQ((h + f).dtype(), DType::kF32);
  EXPECT_EQ((i * 0.5).dtype(), DType::kF32);
  EXPECT_EQ((i / i).dtype(), DType::kF32);
  EXPECT_EQ(exp(i).dtype(), DType::kF32);
  EXPECT_EQ((i + h).to_vector<float>(), (std::vector<float>{1.5f, 2.25f, 5}));
  EXPECT_EQ((i * 0.5).to_vector<float>(), (std::vector<float>{0.5f, 1, 1.5f}));
  EXPECT_EQ((i / (i + 1)).to_vector<float>(), (std::vector<float>{0.5f, 2 / 3.0f, 0.75f}));
}

// An integer operand of a 16-bit float operation is first converted to that dtype (as in
// PyTorch, and as the GPU computes it): 1275 is 1272 in bf16 (8 significant bits), so
// (-2)^1275 is +inf, not -inf, and 1275 + 0.5 is 1272 (fuzzer seed 728266).
TEST(PointwiseTest, IntegerOperandsOfHalfOpsRoundToTheHalfDtype) {
  Tensor e = from_vector(std::vector<int32_t>{1275, 3}, {2}, DType::kI32, Device::kCPU);
  Tensor x = from_vector({-2.0f, -2.0f}, {2}, DType::kBF16, Device::kCPU);
  const std::vector<float> p = pow(x, e).to_vector<float>();
  EXPECT_EQ(p[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(p[1], -8.0f);
  Tensor h = from_vector({0.5f, 0.5f}, {2}, DType::kBF16, Device::kCPU);
  EXPECT_EQ((e + h).to_vector<float>(), (std::vector<float>{1272, 3.5f}));
  EXPECT_EQ(
      eq(e, from_vector({1272.0f, 3.0f}, {2}, DType::kBF16, Device::kCPU)).to_vector<uint8_t>(),
      (std::vector<uint8_t>{1, 1}));
}

// -0 keeps its sign through every step: x / -0 is -x * inf (fuzzer seed 826200).
TEST(PointwiseTest, NegativeZeroKeepsItsSign) {
  // 64 elements: Eigen's vectorized negation computes 0 - x, which makes -0 +0.
  std::vector<float> bits(64), expected(64);
  for (int i = 0; i < 64; ++i) {
    bits[i] = static_cast<float>(i % 2);
    expected[i] = i % 2 == 0 ? std::numeric_limits<float>::infinity() : 1.5f;
  }
  Tensor zero = cast(from_vector(bits, {64}, DType::kBool, Device::kCPU), DType::kF32);
  EXPECT_EQ((-1.5 / -zero).to_vector<float>(), expected);
  Tensor s = full({}, -1.5, DType::kF32, Device::kCPU);
  EXPECT_EQ((s / neg(zero)).to_vector<float>(), expected);
  for (auto f : {&sin, &tanh, &relu, &sqrt}) {  // -0 at -0
    const std::vector<float> q = (s / f(neg(zero))).to_vector<float>();
    for (int i = 0; i < 64; i += 2) EXPECT_EQ(q[i], expected[i]) << i;
  }
}

TEST(PointwiseTest, IntegerArithmeticStaysInteger) {
  Tensor a =
      from_vector(std::vector<int32_t>{-7, 3, 2147483647, 5}, {4}, DType::kI32, Device::kCPU);
  Tensor b = from_vector(std::vector<int32_t>{2, -3, 1, 3}, {4}, DType::kI32, Device::kCPU);
  EXPECT_EQ((a + b).dtype(), DType::kI32);
  EXPECT_EQ((a + b).to_vector<int32_t>(),
            (std::vector<int32_t>{-5, 0, -2147483647 - 1, 8}));  // wraps as int32 does
  EXPECT_EQ((a * b).to_vector<int32_t>(), (std::vector<int32_t>{-14, -9, 2147483647, 15}));
  EXPECT_EQ(pow(a, b).to_vector<int32_t>(), (std::vector<int32_t>{49, 0, 2147483647, 125}));
  EXPECT_EQ(maximum(a, b).to_vector<int32_t>(), (std::vector<int32_t>{2, 3, 2147483647, 5}));
  EXPECT_EQ(abs(a).to_vector<int32_t>()[0], 7);
  EXPECT_EQ(relu(a).to_vector<int32_t>()[0], 0);
  EXPECT_EQ((-a).to_vector<int32_t>()[1], -3);
}

TEST(PointwiseTest, ComparisonsGiveBool) {
  Tensor a = from_vector({1, 2, 3, NAN}, {4}, DType::kF32, Device::kCPU);
  Tensor b = from_vector({2, 2, 2, 2}, {4}, DType::kF16, Device::kCPU);
  using V = std::vector<bool>;
  EXPECT_EQ(eq(a, b).dtype(), DType::kBool);
  EXPECT_EQ(eq(a, b).to_vector<bool>(), (V{false, true, false, false}));
  EXPECT_EQ(ne(a, b).to_vector<bool>(), (V{true, false, true, true}));
  EXPECT_EQ(lt(a, b).to_vector<bool>(), (V{true, false, false, false}));
  EXPECT_EQ(le(a, b).to_vector<bool>(), (V{true, true, false, false}));
  EXPECT_EQ(gt(a, b).to_vector<bool>(), (V{false, false, true, false}));
  EXPECT_EQ(ge(a, b).to_vector<bool>(), (V{false, true, true, false}));
}

// As PyTorch: bool + bool is `or`, bool * bool `and`, and a float function of a bool reads
// 0 and 1.
TEST(PointwiseTest, BoolArithmetic) {
  const Tensor a = gt(from_vector({1, 1, 0, 0}, {4}, DType::kF32, Device::kCPU), 0.5);
  const Tensor b = gt(from_vector({1, 0, 1, 0}, {4}, DType::kF32, Device::kCPU), 0.5);
  using V = std::vector<bool>;
  EXPECT_EQ((a + b).dtype(), DType::kBool);
  EXPECT_EQ((a + b).to_vector<bool>(), (V{true, true, true, false}));
  EXPECT_EQ((a * b).to_vector<bool>(), (V{true, false, false, false}));
  EXPECT_EQ(exp(a).dtype(), DType::kF32);
  EXPECT_EQ(exp(a).to_vector<float>(), (std::vector<float>{std::exp(1.0f), std::exp(1.0f), 1, 1}));
  EXPECT_EQ((sigmoid(b) * 2.0).to_vector<float>()[3], 1.0f);
  EXPECT_EQ((a + 1.0).to_vector<float>(), (std::vector<float>{2, 2, 1, 1}));
}

TEST(PointwiseTest, WhereSelectsAndBroadcasts) {
  Tensor cond =
      from_vector(std::vector<bool>{true, false, true}, {3, 1}, DType::kBool, Device::kCPU);
  Tensor a = from_vector({1, 2}, {1, 2}, DType::kF32, Device::kCPU);
  Tensor b = full({}, -1, DType::kBF16, Device::kCPU);
  Tensor y = where(cond, a, b);
  EXPECT_EQ(y.shape(), (Shape{3, 2}));
  EXPECT_EQ(y.dtype(), DType::kF32);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, 2, -1, -1, 1, 2}));
  Tensor x = from_vector({-2, 0.5f, 3}, {3}, DType::kF32, Device::kCPU);
  EXPECT_EQ(where(gt(x, zeros({}, DType::kF32, Device::kCPU)), x, x * 0.1).to_vector<float>(),
            (std::vector<float>{-0.2f, 0.5f, 3}));
}

TEST(PointwiseTest, CastsRoundAndSaturate) {
  Tensor x = from_vector({1.7f, -2.5f, 1e10f, 0, 3.14159f}, {5}, DType::kF32, Device::kCPU);
  EXPECT_EQ(cast(x, DType::kI32).to_vector<int32_t>(),
            (std::vector<int32_t>{1, -2, 2147483647, 0, 3}));
  EXPECT_EQ(cast(x, DType::kBool).to_vector<bool>(),
            (std::vector<bool>{true, true, true, false, true}));
  EXPECT_EQ(cast(x, DType::kBF16).to_vector<float>()[4], 3.140625f);
  EXPECT_EQ(cast(x, DType::kF16).to_vector<float>()[4], 3.140625f);
  EXPECT_EQ(cast(x, DType::kF16).to_vector<float>()[2], INFINITY);  // past f16's range
  EXPECT_EQ(cast(x, DType::kF32).node_ptr(), x.node_ptr());
}

// f64 to f16 or bf16 rounds once (not to f32 first, whose rounding could land on a 16-bit
// midpoint): values just past a midpoint go up, a midpoint itself to even.
TEST(PointwiseTest, CastsFromF64RoundOnce) {
  const std::vector<double> v = {1 + 0x1p-11 + 0x1p-40,
                                 -(1 + 0x1p-11 + 0x1p-40),
                                 1 + 0x1p-11,
                                 1 + 0x1p-8 + 0x1p-40,
                                 65519.999,
                                 65520.0};
  const Tensor x = from_vector(v, {6}, DType::kF64, Device::kCPU);
  EXPECT_EQ(cast(x, DType::kF16).to_vector<double>(),
            (std::vector<double>{1 + 0x1p-10, -(1 + 0x1p-10), 1, 1 + 0x1p-8, 65504, INFINITY}));
  EXPECT_EQ(cast(x, DType::kBF16).to_vector<double>()[3], 1 + 0x1p-7);
  EXPECT_EQ(full({}, v[0], DType::kF16, Device::kCPU).to_vector<double>()[0], 1 + 0x1p-10);
}

TEST(PointwiseTest, SpecialValuesPropagate) {
  Tensor x = from_vector({NAN, INFINITY, -INFINITY, -100, 100}, {5}, DType::kF32, Device::kCPU);
  std::vector<float> s = sigmoid(x).to_vector<float>();
  EXPECT_TRUE(std::isnan(s[0]));
  EXPECT_EQ(s[1], 1);
  EXPECT_EQ(s[2], 0);
  EXPECT_EQ(s[3], 0);
  EXPECT_EQ(s[4], 1);
  EXPECT_TRUE(std::isnan(relu(x).to_vector<float>()[0]));
  EXPECT_TRUE(std::isnan(maximum(x, x * 0.0).to_vector<float>()[0]));
  EXPECT_TRUE(std::isnan(minimum(zeros({5}, DType::kF32, Device::kCPU), x).to_vector<float>()[0]));
}

Tensor F(std::vector<float> v, DType dtype = DType::kF32) {
  const int64_t n = static_cast<int64_t>(v.size());
  return from_vector(v, {n}, dtype, Device::kCPU);
}
Tensor I(std::vector<int32_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return from_vector(v, {n}, DType::kI32, Device::kCPU);
}

TEST(PointwiseAdditionsTest, RoundingKeepsTheDtypeAndRoundsHalfToEven) {
  Tensor x = F({-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.7f, -2.7f});
  EXPECT_EQ(floor(x).to_vector<float>(), (std::vector<float>{-2, -1, 0, 1, 2, 2, -3}));
  EXPECT_EQ(ceil(x).to_vector<float>(), (std::vector<float>{-1, -0.0f, 1, 2, 3, 3, -2}));
  EXPECT_EQ(round(x).to_vector<float>(), (std::vector<float>{-2, -0.0f, 0, 2, 2, 3, -3}));
  EXPECT_EQ(trunc(x).to_vector<float>(), (std::vector<float>{-1, -0.0f, 0, 1, 2, 2, -2}));
  EXPECT_TRUE(std::signbit(round(F({-0.5f})).to_vector<float>()[0]));
  EXPECT_EQ(floor(I({-3, 4})).dtype(), DType::kI32);
  EXPECT_EQ(floor(I({-3, 4})).to_vector<int32_t>(), (std::vector<int32_t>{-3, 4}));
  EXPECT_EQ(round(F({2.5f}, DType::kBF16)).dtype(), DType::kBF16);
}

TEST(PointwiseAdditionsTest, SignLog1pExpm1) {
  const std::vector<float> s = sign(F({-2, -0.0f, 0, 3, NAN})).to_vector<float>();
  EXPECT_EQ(std::vector<float>(s.begin(), s.begin() + 4), (std::vector<float>{-1, 0, 0, 1}));
  EXPECT_TRUE(std::isnan(s[4]));
  EXPECT_EQ(sign(I({-5, 0, 7})).to_vector<int32_t>(), (std::vector<int32_t>{-1, 0, 1}));
  // Precise near 0, where log(1 + x) and exp(x) - 1 lose every digit.
  EXPECT_FLOAT_EQ(log1p(F({1e-10f})).to_vector<float>()[0], 1e-10f);
  EXPECT_FLOAT_EQ(expm1(F({1e-10f})).to_vector<float>()[0], 1e-10f);
  EXPECT_EQ(log1p(I({0})).dtype(), DType::kF32);
}

TEST(PointwiseAdditionsTest, PredicatesAndLogicalOperations) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = F({1, NAN, inf, -inf}, DType::kBF16);
  EXPECT_EQ(isnan(x).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 1, 0, 0}));
  EXPECT_EQ(isinf(x).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 0, 1, 1}));
  EXPECT_EQ(isfinite(x).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0, 0, 0}));
  EXPECT_EQ(isfinite(I({1})).to_vector<uint8_t>(), (std::vector<uint8_t>{1}));
  EXPECT_EQ(isnan(I({1})).to_vector<uint8_t>(), (std::vector<uint8_t>{0}));
  EXPECT_EQ(logical_not(F({0, -0.0f, 2, NAN})).to_vector<uint8_t>(),
            (std::vector<uint8_t>{1, 1, 0, 0}));
  Tensor a = F({0, 0, 0.5f, 3}), b = I({0, 2, 0, -1});
  EXPECT_EQ(logical_and(a, b).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(logical_or(a, b).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(logical_xor(a, b).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 1, 1, 0}));
  EXPECT_EQ(logical_and(a, b).dtype(), DType::kBool);
}

TEST(PointwiseAdditionsTest, RemainderFollowsTheDivisorFmodTheDividend) {
  Tensor a = F({-7, 7, -7, 7, 5.5f, 1}), b = F({3, -3, -3, 3, 2, 0});
  const std::vector<float> r = remainder(a, b).to_vector<float>();
  const std::vector<float> f = fmod(a, b).to_vector<float>();
  EXPECT_EQ(std::vector<float>(r.begin(), r.end() - 1), (std::vector<float>{2, -2, -1, 1, 1.5f}));
  EXPECT_EQ(std::vector<float>(f.begin(), f.end() - 1), (std::vector<float>{-1, 1, -1, 1, 1.5f}));
  EXPECT_TRUE(std::isnan(r.back()) && std::isnan(f.back()));  // a float divisor of 0
  Tensor ia = I({-7, 7, -7, 5, -2147483647 - 1}), ib = I({3, -3, 0, 0, -1});
  EXPECT_EQ(remainder(ia, ib).to_vector<int32_t>(), (std::vector<int32_t>{2, -2, 0, 0, 0}));
  EXPECT_EQ(fmod(ia, ib).to_vector<int32_t>(), (std::vector<int32_t>{-1, 1, 0, 0, 0}));
  EXPECT_EQ(remainder(F({-1}), 0.75).to_vector<float>(), (std::vector<float>{0.5f}));
  testing::ExpectError([] { remainder(F({1}, DType::kBool), F({1}, DType::kBool)); },
                       {"tessel::remainder:", "bool"});
}

TEST(PointwiseAdditionsTest, Atan2Quadrants) {
  const std::vector<float> got =
      atan2(F({1, 1, -1, -1, 0}), F({1, -1, -1, 1, -1})).to_vector<float>();
  const std::vector<double> want = {M_PI / 4, 3 * M_PI / 4, -3 * M_PI / 4, -M_PI / 4, M_PI};
  testing::ExpectClose(got, want, 1e-6);
  EXPECT_EQ(atan2(I({1}), I({1})).dtype(), DType::kF32);
}

TEST(PointwiseAdditionsTest, ClampWhereAndComparisonsWithScalars) {
  EXPECT_EQ(clamp(F({-2, 0.5f, 9}), 0, 1).to_vector<float>(), (std::vector<float>{0, 0.5f, 1}));
  EXPECT_EQ(clamp(F({-2, 9}), 3, 1).to_vector<float>(), (std::vector<float>{1, 1}));  // lo > hi
  EXPECT_TRUE(std::isnan(clamp(F({NAN}), 0, 1).to_vector<float>()[0]));
  EXPECT_EQ(clamp(I({-3, 3}), -1.5, 1.5).dtype(), DType::kF32);
  EXPECT_EQ(clamp(I({-3, 3}), -1, 1).to_vector<int32_t>(), (std::vector<int32_t>{-1, 1}));
  Tensor c = from_vector(std::vector<bool>{true, false}, {2}, DType::kBool, Device::kCPU);
  EXPECT_EQ(where(c, 7.0, F({1, 2}, DType::kBF16)).dtype(), DType::kBF16);
  EXPECT_EQ(where(c, 7.0, F({1, 2})).to_vector<float>(), (std::vector<float>{7, 2}));
  EXPECT_EQ(where(c, I({1, 2}), -1.0).to_vector<int32_t>(), (std::vector<int32_t>{1, -1}));
  EXPECT_EQ(lt(I({0, 1}), 0.5).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0}));  // as f32
  EXPECT_EQ(ge(0.5, I({0, 1})).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(eq(F({2, 3}), 3.0).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 1}));
  testing::ExpectError([] { floor(F({1}, DType::kBool)); }, {"tessel::floor:", "bool"});
}

TEST(PointwiseAdditionsTest, MaskedFillBroadcastsTheMask) {
  Tensor scores = from_vector({1, 2, 3, 4, 5, 6}, {2, 3}, DType::kBF16, Device::kCPU);
  Tensor mask = from_vector(std::vector<bool>{false, true, true}, {3}, DType::kBool, Device::kCPU);
  Tensor y = masked_fill(scores, mask, -1e9);
  EXPECT_EQ(y.dtype(), DType::kBF16);
  const std::vector<float> v = y.to_vector<float>();
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[3], 4);
  EXPECT_LT(v[1], -9e8);
  EXPECT_LT(v[5], -9e8);
  testing::ExpectError([&] { masked_fill(scores, scores, 0); },
                       {"tessel::masked_fill:", "bool", "bf16[2,3]"});
  Tensor wide = from_vector(std::vector<bool>(12, true), {2, 2, 3}, DType::kBool, Device::kCPU);
  testing::ExpectError([&] { masked_fill(scores, wide, 0); },
                       {"tessel::masked_fill:", "bool[2,2,3]", "bf16[2,3]"});
}

// As in PyTorch: the fill takes the tensor's type (an integer value truncated toward zero,
// one outside the type refused), and integers take no negative integer power.
TEST(PointwiseAdditionsTest, IntegerTensorsKeepTheirTypeAndRefuseNegativePowers) {
  const Tensor i = from_vector(std::vector<int32_t>{5, -6, 7}, {3}, DType::kI32, Device::kCPU);
  const Tensor mask =
      from_vector(std::vector<bool>{true, true, false}, {3}, DType::kBool, Device::kCPU);
  const Tensor filled = masked_fill(i, mask, -2.5);
  EXPECT_EQ(filled.dtype(), DType::kI32);
  EXPECT_EQ(filled.to_vector<int32_t>(), (std::vector<int32_t>{-2, -2, 7}));
  testing::ExpectError([&] { masked_fill(i, mask, -INFINITY); },
                       {"tessel::masked_fill:", "-inf", "i32[3]"});
  testing::ExpectError([&] { masked_fill(i, mask, 3e9); }, {"tessel::masked_fill:", "i32[3]"});
  testing::ExpectError([&] { pow(i, -1.0); }, {"tessel::pow:", "negative", "i32[3]"});
  EXPECT_EQ(pow(i, 2.0).to_vector<int32_t>(), (std::vector<int32_t>{25, 36, 49}));
  EXPECT_EQ(pow(i, -0.5).dtype(), DType::kF32);  // a fraction promotes, as in PyTorch
  EXPECT_FLOAT_EQ(pow(cast(i, DType::kF32), -1.0).to_vector<float>()[0], 0.2f);
}

}  // namespace
}  // namespace tessel
