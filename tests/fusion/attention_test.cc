// Attention found in plain tensor code (fusion/attention.h): the forms users write match;
// each near miss says why it does not.
#include "fusion/attention.h"

#include <cmath>

#include "absl/strings/match.h"
#include "core/realize.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel::fusion_internal {
namespace {

Tensor In(Shape shape, DType dtype = DType::kBF16) {
  return from_vector(std::vector<float>(shape.numel()), shape, dtype, Device::kCPU);
}

// The match for `o` in the program that computes `roots` (o first), or the refusal.
struct Matched {
  std::optional<AttentionMatch> match;
  std::string why_not;
};

Matched MatchIn(const Tensor& o, const std::vector<Tensor>& more = {}) {
  std::vector<const Node*> roots = {&o.node()};
  for (const Tensor& t : more) roots.push_back(&t.node());
  const PlannerState state(CollectProgram(roots), FusionOptions{});
  Matched m;
  m.match = MatchAttention(state, &o.node(), &m.why_not);
  return m;
}

TEST(AttentionTest, SoftmaxOfScaledScores) {
  const Tensor q = In({2, 4, 128, 64}), k = In({2, 4, 256, 64}), v = In({2, 4, 256, 64});
  const Tensor s = matmul(q, transpose(k));
  const Tensor o = matmul(softmax(s * 0.125, -1), v);
  const Matched m = MatchIn(o);
  ASSERT_TRUE(m.match.has_value()) << m.why_not;
  EXPECT_EQ(m.match->scores, &s.node());
  EXPECT_EQ(m.match->output, &o.node());
  EXPECT_EQ(m.match->q, &q.node());
  EXPECT_EQ(m.match->v, &v.node());
  // The scale (in bf16, as written), then softmax's cast to f32; the scale's scalar is read
  // from outside.
  ASSERT_EQ(m.match->score_ops.size(), 2u);
  EXPECT_EQ(m.match->score_ops[0]->op(), OpKind::kMul);
  EXPECT_EQ(m.match->score_ops[1]->op(), OpKind::kCast);
  ASSERT_EQ(m.match->score_inputs.size(), 1u);
  EXPECT_EQ(m.match->score_inputs[0]->op(), OpKind::kFull);
  // scores, cast, mul, max, sub, exp, sum, div, cast, matmul
  EXPECT_EQ(m.match->members.size(), 10u);
  EXPECT_EQ(m.match->members.front(), &s.node());
  EXPECT_EQ(m.match->members.back(), &o.node());
}

TEST(AttentionTest, HandWrittenSoftmaxWithBiasAndCausalMask) {
  const int64_t n = 128;
  const Tensor q = In({8, n, 128}, DType::kF16), k = In({8, n, 128}, DType::kF16);
  const Tensor v = In({8, n, 128}, DType::kF16), bias = In({n, n}, DType::kF32);
  const Tensor mask = triu(ones({n, n}, DType::kBool), 1);
  Tensor x = cast(matmul(q, transpose(k)), DType::kF32) * (1 / std::sqrt(128.0)) + bias;
  x = masked_fill(x, mask, -INFINITY);
  const Tensor e = exp(x - max(x, {-1}, true));
  const Tensor o = matmul(cast(e / sum(e, {-1}, true), DType::kF16), v);
  const Matched m = MatchIn(o);
  ASSERT_TRUE(m.match.has_value()) << m.why_not;
  // The bias and the mask's cone (the triangle's comparison) are read per score tile.
  bool reads_bias = false;
  for (const Node* in : m.match->score_inputs) reads_bias |= in == &bias.node();
  EXPECT_TRUE(reads_bias);
  EXPECT_GE(m.match->score_inputs.size(), 3u);  // scale, bias, mask (and -inf)
}

TEST(AttentionTest, KeysAndValuesBroadcastOverHeadGroups) {
  // Grouped heads: k and v [2, 2, 1, S, D] serve 4 query heads each.
  const Tensor q = In({2, 2, 4, 64, 128}), k = In({2, 2, 1, 64, 128}), v = In({2, 2, 1, 64, 128});
  const Tensor o = matmul(softmax(matmul(q, transpose(k)), -1), v);
  const Matched m = MatchIn(o);
  EXPECT_TRUE(m.match.has_value()) << m.why_not;
}

// The planner makes the chain one attention kernel where the target has one (sm_80 on), and
// explain() names a near miss.
TEST(AttentionTest, PlannedAsOneKernel) {
  const Tensor q = In({2, 4, 128, 64}), k = In({2, 4, 256, 64}), v = In({2, 4, 256, 64});
  const Tensor o = matmul(softmax(matmul(q, transpose(k)) * 0.125, -1), v);
  const Program program = CollectProgram({&o.node()});
  FusionOptions options;
  options.attention = true;
  const FusionPlan plan = PlanFusion(program, options);
  ASSERT_EQ(plan.kernels.size(), 1u) << PrintPlan(plan, {&o.node()});
  EXPECT_EQ(plan.kernels[0].kind, KernelKind::kAttention);
  EXPECT_EQ(plan.kernels[0].matmul, &o.node());
  EXPECT_EQ(plan.kernels[0].outputs, std::vector<const Node*>{&o.node()});
  options.attention = false;  // GPUs before sm_80: the scores are written
  EXPECT_GT(PlanFusion(program, options).kernels.size(), 1u);
  // Softmax over the queries' axis: no attention kernel, and the plan says why.
  const Tensor miss = matmul(softmax(matmul(q, transpose(k)), 2), v);
  options.attention = true;
  const FusionPlan missed = PlanFusion(CollectProgram({&miss.node()}), options);
  EXPECT_TRUE(absl::StrContains(PrintPlan(missed, {&miss.node()}),
                                "no attention kernel: the softmax runs over axis 2"))
      << PrintPlan(missed, {&miss.node()});
}

// The forms bench/attention_bench.cc times: q reshaped into head groups over shared k and v,
// a causal mask of queries at the end of the keys, and one query (decoding).
TEST(AttentionTest, GroupedCausalAndDecodeFormsPlanAsOneKernel) {
  for (const int64_t sq : {int64_t{1}, int64_t{16}, int64_t{96}}) {
    SCOPED_TRACE(::testing::Message() << sq << " queries");
    const int64_t sk = 160;
    const Tensor q = In({2, 8, sq, 128}), k = In({2, 2, 1, sk, 128}), v = In({2, 2, 1, sk, 128});
    Tensor s = matmul(reshape(q, {2, 2, 4, sq, 128}), transpose(k)) * (1 / std::sqrt(128.0));
    s = masked_fill(s, triu(ones({sq, sk}, DType::kBool), sk - sq + 1), -INFINITY);
    const Tensor o = matmul(softmax(s, -1), v);
    FusionOptions options;
    options.attention = true;
    const FusionPlan plan = PlanFusion(CollectProgram({&o.node()}), options);
    ASSERT_EQ(plan.kernels.size(), 1u) << PrintPlan(plan, {&o.node()});
    EXPECT_EQ(plan.kernels[0].kind, KernelKind::kAttention);
  }
}

TEST(AttentionTest, NearMissesSayWhy) {
  const Tensor q = In({4, 128, 64}), k = In({4, 128, 64}), v = In({4, 128, 64});
  const Tensor s = matmul(q, transpose(k));
  auto why = [](const Tensor& o, const std::vector<Tensor>& more = {}) {
    const Matched m = MatchIn(o, more);
    EXPECT_FALSE(m.match.has_value());
    return m.why_not;
  };
  EXPECT_TRUE(absl::StrContains(why(matmul(softmax(s, 1), v)), "axis 1"));
  EXPECT_TRUE(absl::StrContains(why(matmul(softmax(s, -1), v), {s}), "program output"));
  const Tensor p = softmax(s, -1);
  EXPECT_TRUE(absl::StrContains(why(matmul(p, v), {p + 1}), "also read by"));
  const Tensor q32 = In({4, 128, 64}, DType::kF32), k32 = In({4, 128, 64}, DType::kF32);
  const Tensor v32 = In({4, 128, 64}, DType::kF32);
  EXPECT_TRUE(
      absl::StrContains(why(matmul(softmax(matmul(q32, transpose(k32)), -1), v32)), "q is f32"));
  const Tensor q96 = In({4, 128, 96}), k96 = In({4, 128, 96}), v96 = In({4, 128, 96});
  EXPECT_TRUE(absl::StrContains(why(matmul(softmax(matmul(q96, transpose(k96)), -1), v96)),
                                "head dimension 96"));
  // k^T read by something else is written transposed, which the kernel cannot read.
  EXPECT_TRUE(absl::StrContains(why(matmul(softmax(s, -1), v), {abs(transpose(k))}),
                                "k^T is also read by a abs"));
  const Tensor other = matmul(In({4, 128, 64}), transpose(k));
  EXPECT_TRUE(absl::StrContains(why(matmul(softmax(s + other, -1), v)), "two matmuls"));
  // A softmax of something else, and a plain matmul: no attention, and nothing to say.
  EXPECT_TRUE(absl::StrContains(why(matmul(softmax(q, -1), transpose(v))), "no matmul"));
  EXPECT_EQ(why(matmul(q, transpose(k))), "");
}

}  // namespace
}  // namespace tessel::fusion_internal
