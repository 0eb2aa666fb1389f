#include "core/graph_text.h"

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

TEST(GraphTextTest, PrintsRecordedGraphs) {
  Tensor x = from_vector({1, 2, 3, 4, 5, 6}, {2, 3}, DType::kF32, Device::kCPU);
  Tensor y = sum(slice(x * 1.5, 1, 0, 2), {-1});
  EXPECT_EQ(PrintGraph({y}),
            "%0 = input f32[2,3]\n"
            "%1 = full f32[] value=1.5\n"
            "%2 = mul f32[2,3] %0, %1\n"
            "%3 = slice f32[2,2] %2 axis=1 start=0 end=2\n"
            "%4 = sum f32[2] %3 axes=[1]\n"
            "return %4\n");
}

TEST(GraphTextTest, RoundTrips) {
  const std::string text =
      "%0 = input bf16[4,8]\n"
      "%1 = randn bf16[8] seed=7\n"
      "%2 = add bf16[4,8] %0, %1\n"
      "%3 = cast f32[4,8] %2\n"
      "%4 = max f32[4,1] %3 axes=[1]\n"
      "%5 = sub f32[4,8] %3, %4\n"
      "%6 = permute f32[8,4] %5 perm=[1,0]\n"
      "%7 = concat f32[16,4] %6, %6 axis=0\n"
      "%8 = full f32[] value=0.1\n"
      "%9 = mul f32[16,4] %7, %8\n"
      "return %9, %4\n";
  absl::StatusOr<ParsedGraph> g = ParseGraph(text);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(PrintGraph(g->outputs), text);
  ASSERT_EQ(g->values.size(), 10u);
  EXPECT_EQ(g->Value("8").node().attrs().value, 0.1);
}

TEST(GraphTextTest, ParsedGraphsComputeWithRealData) {
  absl::StatusOr<ParsedGraph> g = ParseGraph(
      "%a = arange f32[4]\n"
      "%b = full f32[] value=2\n"
      "%c = mul f32[4] %a, %b\n"
      "return %c\n");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->outputs[0].to_vector<float>(), (std::vector<float>{0, 2, 4, 6}));
}

TEST(GraphTextTest, PlaceholdersCannotBeRealized) {
  absl::StatusOr<ParsedGraph> g = ParseGraph("%0 = input f32[2]\n%1 = exp f32[2] %0\nreturn %1");
  ASSERT_TRUE(g.ok());
  testing::ExpectError([&] { realize(g->outputs); }, {"has no data"});
}

TEST(GraphTextTest, ReportsBadLines) {
  auto error = [](const char* text) {
    absl::StatusOr<ParsedGraph> g = ParseGraph(text);
    return g.ok() ? std::string("ok") : std::string(g.status().message());
  };
  EXPECT_EQ(error("%0 = frobnicate f32[2]"), "graph text line 1: unknown operation 'frobnicate'");
  EXPECT_EQ(error("%0 = input f99[2]"), "graph text line 1: bad type 'f99[2]'");
  EXPECT_EQ(error("%0 = input f32[2]\n%1 = add f32[2] %0"),
            "graph text line 2: add takes 2 operands, not 1");
  EXPECT_EQ(error("%1 = exp f32[2] %0"), "graph text line 1: unknown %0");
  EXPECT_EQ(error("%0 = input f32[2]\n%1 = exp f32[2] %0 axes=[0]"),
            "graph text line 2: exp takes no attribute 'axes'");
  EXPECT_EQ(error("nonsense"), "graph text line 1: expected '%name = op type operands attributes'");
}

TEST(GraphTextTest, PrintingIsDeterministic) {
  auto build = [] {
    Tensor x = from_vector({1, 2}, {2}, DType::kF32, Device::kCPU);
    return PrintGraph({softmax(x), log_softmax(x)});
  };
  EXPECT_EQ(build(), build());
}

}  // namespace
}  // namespace tessel
