// One test per user error: each throws tessel::Error at the recording call, naming the
// operation and the shapes or dtypes involved.
#include "core/graph_text.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::ExpectError;

Tensor F32(Shape shape) { return zeros(shape, DType::kF32, Device::kCPU); }

TEST(ErrorsTest, ShapesThatDoNotBroadcast) {
  ExpectError(
      [] {
        add(F32({2, 3}), F32({4}));
      },
      {"tessel::add: operands f32[2,3] and f32[4] do not broadcast",
       "dimension 1 of the result: 3 vs 4"});
  ExpectError([] { F32({2}) * F32({3}); }, {"tessel::mul:", "f32[2]", "f32[3]"});
}

// Errors of a call that records other ops name the call, not the op inside it (found by a
// crash-hunting helper: explain said tessel::inspect, grouped_matmul said tessel::matmul).
TEST(ErrorsTest, ACallNamesItselfNotWhatItRecordsInside) {
  ExpectError([] { explain({Tensor()}); }, {"tessel::explain:"});
  ExpectError([] { inspect({Tensor()}); }, {"tessel::inspect:"});
  ExpectError(
      [] {
        grouped_matmul({F32({2, 4}), F32({3, 5})}, {F32({4, 6}), F32({4, 4})});
      },
      {"tessel::grouped_matmul: problem 1 (a[1] x b[1]): matmul: inner sizes differ", "f32[3,5]",
       "f32[4,4]"});
}

TEST(ErrorsTest, WhereConditionMustBeBool) {
  ExpectError([] { where(F32({2}), F32({2}), F32({2})); },
              {"tessel::where: the condition must be bool, got f32[2]"});
}

TEST(ErrorsTest, WhereConditionMustBroadcast) {
  Tensor c = zeros({3}, DType::kBool, Device::kCPU);
  ExpectError([&] { where(c, F32({2}), F32({2})); },
              {"tessel::where: condition bool[3] does not broadcast with f32[2] and f32[2]"});
}

TEST(ErrorsTest, BoolArithmetic) {
  Tensor b = zeros({2}, DType::kBool, Device::kCPU);
  ExpectError([&] { b - b; }, {"tessel::sub: does not take two bool operands (bool[2], bool[2])"});
  ExpectError([&] { -b; }, {"tessel::neg: does not take bool operands (bool[2])"});
}

TEST(ErrorsTest, AxisOutOfRange) {
  ExpectError(
      [] {
        sum(F32({2, 3}), {2});
      },
      {"tessel::sum: axis 2 is out of range for f32[2,3] (rank 2)"});
  ExpectError([] { softmax(F32({2, 3}), -3); }, {"tessel::softmax: axis -3", "f32[2,3]"});
  ExpectError([] { slice(F32({2}), 1, 0, 1); }, {"tessel::slice: axis 1", "f32[2]"});
  ExpectError([] { concat({F32({2})}, 1); }, {"tessel::concat: axis 1", "f32[2]"});
}

TEST(ErrorsTest, RepeatedAxes) {
  ExpectError(
      [] {
        max(F32({2, 3}), {1, -1});
      },
      {"tessel::max: axes [1,-1] name an axis twice for f32[2,3]"});
}

TEST(ErrorsTest, MeanOfIntegers) {
  ExpectError([] { mean(zeros({2}, DType::kI32, Device::kCPU)); },
              {"tessel::mean: needs a floating operand, got i32[2]"});
}

TEST(ErrorsTest, ExtremumOfNothing) {
  ExpectError([] { min(F32({0, 2}), {0}); }, {"tessel::min: reduces the empty axis 0 of f32[0,2]"});
}

TEST(ErrorsTest, ReshapeSizes) {
  ExpectError(
      [] {
        reshape(F32({2, 3}), {4, 2});
      },
      {"tessel::reshape: cannot reshape f32[2,3] (6 elements) to [4,2]"});
  ExpectError([] { reshape(F32({2, 3}), {-1, -1}); }, {"tessel::reshape: bad target shape"});
  ExpectError([] { reshape(F32({2, 3}), {4, -1}); }, {"tessel::reshape: cannot reshape"});
}

TEST(ErrorsTest, BadPermutations) {
  ExpectError(
      [] {
        permute(F32({2, 3}), {0});
      },
      {"tessel::permute: permutation [0] has 1 entries for f32[2,3]"});
  ExpectError(
      [] {
        permute(F32({2, 3}), {1, 1});
      },
      {"tessel::permute: [1,1] is not a permutation"});
  ExpectError([] { transpose(F32({3})); }, {"tessel::transpose: needs rank >= 2, got f32[3]"});
}

TEST(ErrorsTest, BroadcastToIncompatibleShape) {
  ExpectError(
      [] {
        broadcast_to(F32({3}), {2, 4});
      },
      {"tessel::broadcast_to: cannot broadcast f32[3] to [2,4]"});
  ExpectError([] { broadcast_to(F32({2, 3}), {3}); }, {"tessel::broadcast_to:"});
}

TEST(ErrorsTest, ConcatMismatch) {
  ExpectError(
      [] {
        concat({F32({2, 3}), F32({2, 4})}, 0);
      },
      {"tessel::concat: f32[2,4] does not match f32[2,3] outside axis 0"});
  ExpectError([] { concat({}, 0); }, {"tessel::concat: needs at least one tensor"});
}

TEST(ErrorsTest, MatmulInnerSizes) {
  ExpectError(
      [] {
        matmul(F32({2, 3}), F32({4, 5}));
      },
      {"tessel::matmul: inner sizes differ: f32[2,3] x f32[4,5] (3 vs 4)"});
  ExpectError(
      [] {
        matmul(F32({2, 2, 3}), F32({3, 3, 5}));
      },
      {"tessel::matmul: batch dimensions of f32[2,2,3] and f32[3,3,5] do not broadcast"});
}

TEST(ErrorsTest, MatmulDtypesAndRanks) {
  ExpectError(
      [] {
        matmul(zeros({2, 2}, DType::kI32, Device::kCPU), F32({2, 2}));
      },
      {"tessel::matmul: takes floating operands, got i32[2,2] x f32[2,2]"});
  ExpectError([] { matmul(F32({}), F32({2})); }, {"tessel::matmul: does not take scalars"});
}

TEST(ErrorsTest, NormalizationParameters) {
  ExpectError(
      [] {
        layer_norm(F32({4, 8}), F32({4}), Tensor());
      },
      {"tessel::layer_norm: weight f32[4] does not match the last axis of f32[4,8] "
       "(expected [8])"});
  ExpectError([] { rms_norm(F32({}), Tensor()); }, {"tessel::rms_norm: needs rank >= 1"});
}

TEST(ErrorsTest, CreationArguments) {
  ExpectError(
      [] {
        from_vector({1, 2, 3}, {2, 2}, DType::kF32, Device::kCPU);
      },
      {"tessel::from_vector: 3 values do not fill shape [2,2] (4 elements)"});
  ExpectError(
      [] {
        full({2, -1}, 0, DType::kF32, Device::kCPU);
      },
      {"tessel::full: negative dimension in shape [2,-1]"});
  ExpectError([] { randn({2}, 1, DType::kI32, Device::kCPU); },
              {"tessel::randn: needs a floating dtype, not i32"});
  ExpectError([] { arange(-1, DType::kF32, Device::kCPU); },
              {"tessel::arange: n must not be negative, got -1"});
}

TEST(ErrorsTest, EmptyHandles) {
  ExpectError([] { exp(Tensor()); }, {"tessel::exp: the tensor is empty"});
  ExpectError([] { Tensor().shape(); }, {"tessel::Tensor: the tensor is empty"});
}

TEST(ErrorsTest, DevicesMustMatch) {
  // A CUDA-placed node can be recorded from text even where no CUDA backend exists.
  absl::StatusOr<ParsedGraph> g = ParseGraph("%0 = input f32[2]\nreturn %0", Device::kCUDA);
  ASSERT_TRUE(g.ok());
  ExpectError([&] { F32({2}) + g->outputs[0]; },
              {"tessel::add: operands are on different devices: f32[2] on cpu, f32[2] on cuda:0"});
}

TEST(ErrorsTest, UnavailableDevice) {
  if (GetBackend(Device::kCUDA).ok()) GTEST_SKIP() << "this machine has a usable GPU";
  ExpectError([] { from_vector({1}, {1}, DType::kF32, Device::kCUDA); },
              {"tessel::from_vector: the cuda device is unavailable: "});
  setenv("TESSEL_DEVICE", "gpu", 1);
  ExpectError([] { default_device(); }, {"TESSEL_DEVICE must be cpu or cuda, not 'gpu'"});
  setenv("TESSEL_DEVICE", " cpu ", 1);  // spaces around, as every setting takes them
  EXPECT_EQ(default_device(), Device::kCPU);
  unsetenv("TESSEL_DEVICE");
}

TEST(ErrorsTest, FailedRealizeLosesNothing) {
  Tensor good = exp(F32({2}));
  realize({good});
  absl::StatusOr<ParsedGraph> g = ParseGraph("%0 = input f32[2]\n%1 = neg f32[2] %0\nreturn %1");
  ASSERT_TRUE(g.ok());
  Tensor bad = g->outputs[0];
  Tensor pending = F32({2}) + 1.0;
  ExpectError([&] { realize({pending, bad}); }, {"has no data"});
  EXPECT_FALSE(bad.realized());
  EXPECT_EQ(good.to_vector<float>(), (std::vector<float>{1, 1}));
  EXPECT_EQ(pending.to_vector<float>(), (std::vector<float>{1, 1}));
}

// Shapes past 2^60 elements, or whose sizes overflow int64 on the way (a broadcast of
// 2^62 + 1 rows wrapped to 4 elements and crashed a reduction), are refused when recorded.
TEST(ErrorsTest, ShapesPastTheLimits) {
  const int64_t huge = (int64_t{1} << 62) + 1;
  const char* limit = "has more than 2^60 elements or an extent past 2^60";
  ExpectError(
      [&] {
        broadcast_to(F32({4}), {huge, 4});
      },
      {"tessel::broadcast_to: shape [4611686018427387905,4]", limit});
  ExpectError([&] { reshape(F32({4}), {huge, 4}); }, {"tessel::reshape:", limit});
  ExpectError(
      [] {
        full({int64_t{1} << 40, int64_t{1} << 40}, 1.0);
      },
      {"tessel::full: shape [1099511627776,1099511627776]", limit});
  ExpectError([] { arange(int64_t{1} << 62); }, {"tessel::arange:", limit});
  ExpectError([&] { repeat(F32({4}), {huge}); }, {limit});
  ExpectError([&] { repeat(F32({1 << 20}), {int64_t{1} << 41}); }, {limit});
  ExpectError([] { pad(F32({4}), {INT64_MAX}, {INT64_MAX}); }, {"tessel::pad:", limit});
  float one = 1;
  ExpectError(
      [&] {
        from_blob(&one, {int64_t{1} << 31, int64_t{1} << 31}, DType::kF32, Device::kCPU);
      },
      {"tessel::from_blob:", limit});
  EXPECT_EQ(full({int64_t{1} << 60, 0}, 1.0).numel(), 0);  // empty: any extent up to 2^60
}

TEST(ErrorsTest, IntegerFillOutsideTheType) {
  ExpectError([] { full({2}, 1e10, DType::kI32, Device::kCPU); },
              {"tessel::full: value 1e+10 is not a value of i32"});
  ExpectError([] { full({2}, NAN, DType::kI64, Device::kCPU); }, {"tessel::full: value nan"});
  EXPECT_EQ(full({1}, -2147483648.0, DType::kI32, Device::kCPU).to_vector<int32_t>()[0], INT32_MIN);
}

TEST(ErrorsTest, LoadingADirectory) {
  ExpectError([] { load(::testing::TempDir()); }, {"tessel::load: cannot read"});
}

// An op recorded through others names itself, and its operands as the user gave them (a
// scalar as f32[], not the line of one it becomes inside).
TEST(ErrorsTest, CompositeOpsNameThemselves) {
  const Tensor x = F32({2, 3});
  ExpectError([&] { std(x, {5}); }, {"tessel::std: axis 5 is out of range for f32[2,3]"});
  ExpectError([&] { all(x, {5}); }, {"tessel::all: axis 5 is out of range for f32[2,3]"});
  ExpectError(
      [&] {
        linear(x, F32({3, 4}), F32({5}));
      },
      {"tessel::linear: bias f32[5] does not broadcast to the product f32[2,4]"});
  ExpectError([] { pad(zeros({2}, DType::kI32, Device::kCPU), {1}, {0}, 1e10); },
              {"tessel::pad: value 1e+10 is not a value of i32"});
  ExpectError([&] { repeat(x, {int64_t{1} << 59, 1, 1}); }, {"tessel::repeat:"});
  ExpectError([] { one_hot(zeros({2}, DType::kI64, Device::kCPU), int64_t{1} << 62); },
              {"tessel::one_hot:"});
  ExpectError([] { matmul(F32({3}), F32({4})); },
              {"tessel::matmul: inner sizes differ: f32[3] x f32[4] (3 vs 4)"});
  ExpectError(
      [] {
        matmul(F32({2, 3}), F32({4}));
      },
      {"tessel::matmul: inner sizes differ: f32[2,3] x f32[4] (3 vs 4)"});
}

TEST(ErrorsTest, AScalarIsALineOfOneAlongAxis0) {
  const Tensor s = F32({});
  const Tensor i = zeros({}, DType::kI64, Device::kCPU);
  const std::string range = "axis 1 is out of range for f32[] (rank 0)";
  ExpectError([&] { argmax(s, 1); }, {"tessel::argmax: ", range});
  ExpectError([&] { softmax(s, 1); }, {"tessel::softmax: ", range});
  ExpectError([&] { log_softmax(s, 1); }, {"tessel::log_softmax: ", range});
  ExpectError([&] { cumsum(s, 1); }, {"tessel::cumsum: ", range});
  ExpectError([&] { gather(s, 1, i); }, {"tessel::gather: ", range});
  ExpectError([&] { scatter_add(s, 1, i, s); }, {"tessel::scatter_add: ", range});
  ExpectError([&] { topk(s, 2); }, {"tessel::topk: k = 2 is out of range for f32[]"});
  ExpectError([] { argmax(zeros({}, DType::kBool, Device::kCPU), 0); },
              {"tessel::argmax: does not take bool operands (bool[])"});
  // Axis 0 and -1 are the line's.
  EXPECT_EQ(argmax(s, -1).to_vector<int64_t>(), std::vector<int64_t>{0});
  EXPECT_EQ(softmax(s, 0).to_vector<float>(), std::vector<float>{1.0f});
  EXPECT_EQ(topk(s, 1).first.rank(), 0);
}

TEST(ErrorsTest, ArangeMakesNoBoolPositions) {
  ExpectError([] { arange(3, DType::kBool, Device::kCPU); }, {"tessel::arange:", "bool"});
}

}  // namespace
}  // namespace tessel
