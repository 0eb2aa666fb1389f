// The fuzzer itself: programs are deterministic, replay to themselves, cover the API; the
// minimizer shrinks; the comparison catches a wrong value and leaves out what is fragile.
#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tessel.h"
#include "tools/fuzz/check.h"
#include "tools/fuzz/compare.h"
#include "tools/fuzz/generator.h"
#include "tools/fuzz/minimize.h"
#include "tools/fuzz/program.h"
#include "tools/fuzz/sensitivity.h"

namespace tessel::fuzz {
namespace {

TEST(FuzzerTest, ASeedNamesOneProgram) {
  EXPECT_EQ(GenerateProgram(7), GenerateProgram(7));
  EXPECT_NE(GenerateProgram(7), GenerateProgram(8));
}

TEST(FuzzerTest, ProgramsReplayToThemselves) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const std::string text = GenerateProgram(seed);
    absl::StatusOr<std::vector<Statement>> program = ParseProgram(text);
    ASSERT_TRUE(program.ok()) << program.status() << "\n" << text;
    absl::StatusOr<std::string> again = Normalize(*program);
    ASSERT_TRUE(again.ok()) << again.status() << "\n" << text;
    EXPECT_EQ(*again, text) << "seed " << seed;
  }
}

// Over a few hundred programs every operation of the graph appears, and so do the shapes
// and program forms the issue asks for.
TEST(FuzzerTest, ProgramsCoverTheApi) {
  std::set<std::string> ops;
  bool realize = false, rank0 = false, size0 = false, size1 = false, several_outputs = false;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    for (absl::string_view line : absl::StrSplit(GenerateProgram(seed), '\n')) {
      std::vector<absl::string_view> words = absl::StrSplit(line, ' ');
      if (words.size() > 3 && words[1] == "=") {
        ops.emplace(words[2]);
        rank0 = rank0 || absl::EndsWith(words[3], "[]");
        size0 = size0 || absl::StrContains(words[3], "[0") || absl::StrContains(words[3], ",0");
        size1 = size1 || absl::StrContains(words[3], ",1]") || absl::StrContains(words[3], "[1,");
      }
      realize = realize || absl::StartsWith(line, "realize ");
      several_outputs =
          several_outputs || (absl::StartsWith(line, "return ") && absl::StrContains(line, ","));
    }
  }
  for (int op = 0; op <= static_cast<int>(OpKind::kScatterAdd); ++op) {
    const OpKind kind = static_cast<OpKind>(op);
    EXPECT_EQ(ops.count(std::string(OpName(kind))), 1u) << kind;
  }
  EXPECT_TRUE(realize && rank0 && size0 && size1 && several_outputs);
}

TEST(FuzzerTest, MinimizerKeepsTheFailureAndDropsTheRest) {
  // A stand-in failure: any program computing a sine "fails".
  auto signature_of = [](const std::string& text) {
    absl::StatusOr<std::vector<Statement>> p = ParseProgram(text);
    if (!p.ok() || !Normalize(*p).ok()) return std::string("invalid");
    return absl::StrContains(text, " sin ") ? std::string("has a sine") : std::string();
  };
  const std::string big =
      "%0 = input f32[64,33]\n%1 = exp f32[64,33] %0\n%2 = sin f32[64,33] %1\n"
      "%3 = sum f32[64] %2 axes=[1]\n%4 = input f32[64]\n%5 = add f32[64] %3, %4\n"
      "realize %5\n%6 = tanh f32[64] %5\nreturn %6, %1\n";
  std::string signature;
  const std::string small = Minimize(big, signature_of, &signature);
  EXPECT_EQ(signature, "has a sine");
  EXPECT_EQ(small, "%0 = input f32[]\n%1 = sin f32[] %0\nreturn %1\n");
}

TEST(FuzzerTest, ComparisonCatchesAWrongElementAndSkipsFragileOnes) {
  OutputValues v;
  v.reference = {1.0, 2.0, 3.0, 4.0, 5.0};
  v.under_noise = {{1.0, 2.0, 3.5, 4.0, 5.0}};  // element 2 is ill-conditioned
  v.tainted = {0, 0, 0, 1, 0};                  // element 3 follows a fragile comparison
  v.device = {1.0, 2.0, 9.0, 9.0, 5.0};
  OutputDiff d = CompareOutput(v, Shape{5}, DType::kF32);
  EXPECT_EQ(d.mismatched, 0);
  EXPECT_EQ(d.fragile, 2);
  v.device = {1.0, 2.001, 3.0, 4.0, 5.0};
  d = CompareOutput(v, Shape{5}, DType::kF32);
  EXPECT_EQ(d.mismatched, 1);
  EXPECT_TRUE(absl::StrContains(d.first, "at [1]")) << d.first;
}

// Per output of the program `text` (replayed under noise): which elements are fragile.
std::vector<std::vector<bool>> FragileOf(const std::string& text) {
  absl::StatusOr<std::vector<Statement>> program = ParseProgram(text);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return {};
  absl::StatusOr<Perturbed> p = ReplayPerturbed(*program, 1, NoiseOptions{});
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return {};
  std::vector<std::vector<bool>> fragile;
  for (const Tensor& t : p->fragile) fragile.push_back(t.to_vector<bool>());
  return fragile;
}

// Every replay moves a 16-bit result by at least the largest ulp of its binade (2^-7 of it
// for bf16, 2^-10 for f16), downwards from a power of two too, where ulps halve.
TEST(FuzzerTest, SixteenBitResultsMoveByTheirBinadesUlp) {
  absl::StatusOr<std::vector<Statement>> program = ParseProgram(
      "%0 = input f32[256]\n%1 = abs f32[256] %0\n%2 = full f32[] value=1e-30\n"
      "%3 = mul f32[256] %1, %2\n%4 = full f32[] value=1\n%5 = add f32[256] %3, %4\n"
      "%6 = cast bf16[256] %5\n%7 = cast f16[256] %5\nreturn %6, %7\n");
  ASSERT_TRUE(program.ok()) << program.status();
  for (NoiseOptions::Kind kind : {NoiseOptions::kUp, NoiseOptions::kDown, NoiseOptions::kMixed}) {
    SCOPED_TRACE(static_cast<int>(kind));
    absl::StatusOr<Perturbed> p = ReplayPerturbed(*program, 1, NoiseOptions{kind, 7});
    ASSERT_TRUE(p.ok()) << p.status();
    ASSERT_EQ(p->outputs.size(), 2u);
    for (int i = 0; i < 2; ++i) {
      const double ulp = i == 0 ? 0x1p-7 : 0x1p-10;
      for (float v : p->outputs[i].to_vector<float>()) {
        EXPECT_GE(std::fabs(v - 1.0), ulp) << v;
        if (kind == NoiseOptions::kUp) {
          EXPECT_GT(v, 1.0f);
        }
        if (kind == NoiseOptions::kDown) {
          EXPECT_LT(v, 1.0f);
        }
      }
    }
  }
}

TEST(FuzzerTest, ComparingComputedValuesThatNearlyTieIsFragile) {
  // exp(x) == exp(x) + tiny: the result may flip on another device; inputs compared exactly
  // may not.
  const std::string text =
      "%0 = input f32[1000]\n%1 = exp f32[1000] %0\n%2 = full f32[] value=1e-30\n"
      "%3 = add f32[1000] %1, %2\n%4 = eq bool[1000] %1, %3\n%5 = eq bool[1000] %0, %0\n"
      "return %4, %5\n";
  const std::vector<std::vector<bool>> fragile = FragileOf(text);
  ASSERT_EQ(fragile.size(), 2u);
  for (bool f : fragile[0]) EXPECT_TRUE(f);
  for (bool f : fragile[1]) EXPECT_FALSE(f);
}

TEST(FuzzerTest, DividingByAComputedValueNearZeroIsFragile) {
  // 1 + erf(x) cancels to 0 or a few ulps for x near -4: x / x is NaN or 1 by rounding alone;
  // a divisor far from 0, or exact, is not fragile.
  const std::string text =
      "%0 = input f32[1000]\n%1 = full f32[] value=-4\n%2 = add f32[1000] %0, %1\n"
      "%3 = erf f32[1000] %2\n%4 = full f32[] value=1\n%5 = add f32[1000] %3, %4\n"
      "%6 = div f32[1000] %5, %5\n%7 = div f32[1000] %4, %0\n%8 = div f32[1000] %3, %3\n"
      "return %6, %7, %8\n";
  const std::vector<std::vector<bool>> fragile = FragileOf(text);
  ASSERT_EQ(fragile.size(), 3u);
  EXPECT_GT(std::count(fragile[0].begin(), fragile[0].end(), true), 0);
  for (bool f : fragile[1]) EXPECT_FALSE(f);
  for (bool f : fragile[2]) EXPECT_FALSE(f);
}

TEST(FuzzerTest, RunningProductsNearTheEndOfTheRangeAreFragile) {
  // Factors near 1e300 pass f64's range within a few terms: whether a running product is
  // infinite depends on the order of the multiplications; products of values near 1 do not.
  const std::string text =
      "%0 = input f64[64]\n%1 = full f64[] value=1e300\n%2 = mul f64[64] %0, %1\n"
      "%3 = cumprod f64[64] %2 axis=0\n%4 = cumprod f64[64] %0 axis=0\nreturn %3, %4\n";
  const std::vector<std::vector<bool>> fragile = FragileOf(text);
  ASSERT_EQ(fragile.size(), 2u);
  EXPECT_TRUE(fragile[0].back());
  for (bool f : fragile[1]) EXPECT_FALSE(f);
}

// One-hot picks (cross-entropy's where/eq form over fresh logits) only in campaigns that ask:
// they add a step (every draw moves); the others' programs stay as they were, those
// DiffModeOnTheCpuChecksTheChecker runs included.
TEST(FuzzerTest, OneHotPicksOnlyWhereAsked) {
  GeneratorOptions picks;
  picks.one_hot_picks = true;
  auto picking = [](const std::string& text) {
    return absl::StrContains(text, "= arange ") && absl::StrContains(text, "= where ");
  };
  int with = 0, without = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    with += picking(GenerateProgram(seed, picks)) ? 1 : 0;
    without += picking(GenerateProgram(seed)) ? 1 : 0;
  }
  EXPECT_GT(with, without + 15) << with << " against " << without;
  CheckOptions streamed;
  streamed.staged_row = 128;
  EXPECT_TRUE(GeneratorFor(streamed).one_hot_picks);
  EXPECT_FALSE(GeneratorFor(CheckOptions{}).one_hot_picks);
}

TEST(FuzzerTest, DiffModeOnTheCpuChecksTheChecker) {
  // The CPU against itself (mid-program realizes against none), and against a simulated
  // device that rounds differently: no program may fail. Seeds 100, 304 and 358 are attention
  // chains whose simulated device moved an element past what two random replays bounded.
  std::vector<uint64_t> seeds = {100, 304, 358};
  for (uint64_t seed = 1; seed <= 40; ++seed) seeds.push_back(seed);
  for (uint64_t seed : seeds) {
    CheckOptions options;
    options.mode = Mode::kDiff;
    options.device = Device::kCPU;
    options.data_seed = seed;
    options.twice = seed % 2 == 0;
    Outcome o = CheckProgram(GenerateProgram(seed), options);
    EXPECT_EQ(o.kind, Outcome::kPass) << seed << ": " << o.signature << " " << o.detail;
    options.simulate = 0.5;
    o = CheckProgram(GenerateProgram(seed), options);
    EXPECT_EQ(o.kind, Outcome::kPass) << seed << ": " << o.signature << " " << o.detail;
  }
}

TEST(FuzzerTest, ARefusalAtAnotherExtentMustBeTheSameOnTheDevice) {
  // Indices in range at extent 12 (remainder by 12) are not at the rerun extent 8: the CPU
  // refuses the program there, and the device (here the CPU again) must refuse it alike.
  const std::string program = R"(%0 = input f32[12]
%1 = input i32[12]
%2 = full i32[] value=12
%3 = remainder i32[12] %1, %2
%4 = gather f32[12] %0, %3 axis=0 caller=0
%5 = sum f32[1] %4 axes=[0]
return %5
)";
  CheckOptions options;
  options.mode = Mode::kDiff;
  options.device = Device::kCPU;
  options.data_seed = 3;
  options.twice = true;  // the reruns at other extents come with the second run
  const Outcome o = CheckProgram(program, options);
  EXPECT_EQ(o.kind, Outcome::kPass) << o.signature << " " << o.detail;
  EXPECT_GT(o.compared, 0);  // the run at extent 12 still compares
}

}  // namespace
}  // namespace tessel::fuzz
