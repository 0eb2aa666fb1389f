// Attention found in plain tensor code (fusion/attention.h): the forms users write match;
// each near miss says why it does not.
#include "fusion/attention.h"

#include <algorithm>
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

// q, k and v as views the kernel reads in place: heads permuted out of [S, H, D], column
// slices of one packed projection; a view it cannot read (a flip) stops the walk there, and
// that view is written (to rows the kernel reads).
TEST(AttentionTest, OperandViewsTheKernelReadsInPlace) {
  const Tensor qkv = In({40, 3 * 4 * 32});
  const auto heads = [&](int part) {
    return permute(reshape(slice(qkv, 1, part * 128, (part + 1) * 128), {40, 4, 32}), {1, 0, 2});
  };
  const Tensor q = heads(0), k_t = transpose(heads(1));
  const Tensor v = flip(permute(In({40, 4, 32}), {1, 0, 2}), {1});
  const Matched m = MatchIn(matmul(softmax(matmul(q, k_t), -1), v));
  ASSERT_TRUE(m.match.has_value()) << m.why_not;
  auto read_through = [&](const Tensor& t) {
    return std::find(m.match->views.begin(), m.match->views.end(), &t.node()) !=
           m.match->views.end();
  };
  EXPECT_TRUE(read_through(q));
  EXPECT_TRUE(read_through(k_t));
  EXPECT_TRUE(read_through(heads(1)));
  EXPECT_FALSE(read_through(v));  // v is written: the flip's steps go backwards
  EXPECT_EQ(m.match->view_stops, std::vector<const Node*>{&v.node()});
}

// The language model's attention: heads sliced out of one packed projection and permuted,
// a causal mask built once and read by two chains (recomputed in each kernel, which then sees
// its band), k^T read by both chains in place; the views that a GEMM or an elementwise op
// also read are written for them (and read from there).
TEST(AttentionTest, ViewsAndSharedMasksPlanAsOneKernelALayer) {
  const int64_t t = 40;
  const Tensor qkv = In({t, 384});
  const auto heads = [&](int part) {
    return permute(reshape(slice(qkv, 1, part * 128, (part + 1) * 128), {t, 4, 32}), {1, 0, 2});
  };
  const Tensor future = eq(tril(ones({t, t}, DType::kBool)), false);
  const auto attend = [&](const Tensor& q) {
    const Tensor s = masked_fill(matmul(q, transpose(heads(1))) * 0.17, future, -INFINITY);
    return matmul(softmax(s, -1), heads(2));
  };
  const Tensor a = attend(heads(0)), b = attend(heads(0) * 2.0);
  const Tensor shared = matmul(heads(2), In({32, 32}));  // v also feeds a plain GEMM
  FusionOptions options;
  options.attention = true;
  const std::vector<const Node*> roots = {&a.node(), &b.node(), &shared.node()};
  const FusionPlan plan = PlanFusion(CollectProgram(roots), options);
  const std::vector<const Node*> expected = {&qkv.node(), &heads(0).node(), &heads(2).node(),
                                             &(heads(0) * 2.0).node()};
  int attention = 0;
  for (const FusedKernel& k : plan.kernels) {
    attention += k.kind == KernelKind::kAttention;
    if (k.kind != KernelKind::kAttention) continue;
    for (const Node* in : k.inputs) {
      EXPECT_NE(std::find(expected.begin(), expected.end(), in), expected.end())
          << PrintPlan(plan, roots);
    }
  }
  EXPECT_EQ(attention, 2) << PrintPlan(plan, roots);
  // The views' copies, two attention kernels, the GEMM: the mask and k^T are not written.
  EXPECT_EQ(plan.kernels.size(), 4u) << PrintPlan(plan, roots);
}

// Elementwise work over the output's shape joins the attention kernel (its store is the
// GEMM epilogue); work over another shape does not.
TEST(AttentionTest, OutputEpilogueJoins) {
  const Tensor q = In({2, 4, 128, 64}), k = In({2, 4, 256, 64}), v = In({2, 4, 256, 64});
  const Tensor o = matmul(softmax(matmul(q, transpose(k)) * 0.125, -1), v);
  const Tensor y = cast((o + In({2, 4, 128, 64})) * 2.0, DType::kF32);
  const Tensor row = sum(o, {-1});
  FusionOptions options;
  options.attention = true;
  const std::vector<const Node*> roots = {&y.node(), &row.node()};
  const FusionPlan plan = PlanFusion(CollectProgram(roots), options);
  ASSERT_EQ(plan.kernels.size(), 2u) << PrintPlan(plan, roots);
  EXPECT_EQ(plan.kernels[0].kind, KernelKind::kAttention);
  EXPECT_EQ(plan.kernels[0].outputs, (std::vector<const Node*>{&o.node(), &y.node()}))
      << PrintPlan(plan, roots);
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
  const Tensor q100 = In({4, 128, 100}), k100 = In({4, 128, 100}), v100 = In({4, 128, 100});
  EXPECT_TRUE(absl::StrContains(why(matmul(softmax(matmul(q100, transpose(k100)), -1), v100)),
                                "head dimension 100"));
  // k^T stored as [.., D, S_k]: its head dimension is not contiguous.
  EXPECT_TRUE(absl::StrContains(why(matmul(softmax(matmul(q, In({4, 64, 128})), -1), v)),
                                "k^T is not a view"));
  // k^T read by something else is written transposed, which the kernel cannot read.
  EXPECT_TRUE(absl::StrContains(why(matmul(softmax(s, -1), v), {abs(transpose(k))}),
                                "k^T is also read by a abs"));
  const Tensor other = matmul(In({4, 128, 64}), transpose(k));
  EXPECT_TRUE(absl::StrContains(why(matmul(softmax(s + other, -1), v)), "two matmuls"));
  // A softmax of something else, and a plain matmul: no attention, and nothing to say.
  EXPECT_TRUE(absl::StrContains(why(matmul(softmax(q, -1), transpose(v))), "no matmul"));
  EXPECT_EQ(why(matmul(q, transpose(k))), "");
}

// Scores of no keys, a softmax over another axis, and a matmul of K = 0: the attention
// near-miss note named a group that became no kernel, and explain and realize threw
// std::out_of_range. The result is zeros.
TEST(AttentionTest, EmptyScoresBeforeAMatmulOfNoTerms) {
  const Tensor s = zeros({4, 0}, DType::kF32, Device::kCPU);
  const Tensor o = matmul(softmax(s, 0), zeros({0, 8}, DType::kF32, Device::kCPU));
  EXPECT_NO_THROW(explain({o}));
  EXPECT_EQ(o.to_vector<float>(), std::vector<float>(32, 0.0f));
  const Tensor q = zeros({2, 4, 8}, DType::kBF16, Device::kCPU),
               k = zeros({2, 0, 8}, DType::kBF16, Device::kCPU);
  const Tensor a = matmul(softmax(matmul(q, transpose(k)), 0), k);
  EXPECT_NO_THROW(explain({a}));
  EXPECT_EQ(a.to_vector<float>(), std::vector<float>(64, 0.0f));
}

}  // namespace
}  // namespace tessel::fusion_internal
