// The planner: graphs as text in, plans out. Positive tests check what fuses; the negative
// tests name each reason a merge is refused.
#include "fusion/planner.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/graph_text.h"
#include "core/realize.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

// The plan points into the graph, so the outputs are kept alive with it.
struct Planned {
  std::vector<Tensor> outputs;
  FusionPlan plan;
  std::string text;
};

Planned PlanOf(const std::vector<Tensor>& outputs, FusionOptions options = {}) {
  std::vector<const Node*> nodes;
  for (const Tensor& t : outputs) nodes.push_back(&t.node());
  Planned p;
  p.outputs = outputs;
  p.plan = PlanFusion(CollectProgram(nodes), options);
  p.text = PrintPlan(p.plan, nodes);
  return p;
}

Planned PlanText(const std::string& graph, FusionOptions options = {}) {
  absl::StatusOr<ParsedGraph> g = ParseGraph(graph);
  EXPECT_TRUE(g.ok()) << g.status();
  return PlanOf(g->outputs, options);
}

bool Contains(const std::string& text, const std::string& piece) {
  return text.find(piece) != std::string::npos;
}

Tensor Input(Shape shape, DType dtype = DType::kF32) {
  return from_vector(std::vector<float>(shape.numel()), shape, dtype, Device::kCPU);
}

TEST(PlannerTest, PointwiseChainIsOneKernel) {
  Planned p = PlanText(
      "%0 = input f32[1024]\n"
      "%1 = full f32[] value=1.5\n"
      "%2 = mul f32[1024] %0, %1\n"
      "%3 = tanh f32[1024] %2\n"
      "%4 = permute f32[1024] %3 perm=[0]\n"
      "%5 = add f32[1024] %4, %0\n"
      "return %5\n");
  EXPECT_EQ(p.text,
            "kernel 0 pointwise: full mul tanh permute add\n"
            "  reads %0\n"
            "  writes %5\n"
            "  computes %1 %2 %3 %4 %5\n"
            "  note: writes %5: program output\n");
}

TEST(PlannerTest, NormalizationsAreOneKernelReadingTheInputOnce) {
  Tensor x = Input({64, 256}, DType::kBF16), w = Input({256}), b = Input({256});
  for (const Tensor& y : {softmax(x), log_softmax(x), layer_norm(x, w, b), rms_norm(x, w)}) {
    Planned p = PlanOf({y});
    ASSERT_EQ(p.plan.kernels.size(), 1u) << p.text;
    const FusedKernel& k = p.plan.kernels[0];
    EXPECT_EQ(k.kind, KernelKind::kNormalization) << p.text;
    EXPECT_TRUE(k.staged);
    EXPECT_EQ(k.inputs[0], &x.node());
    EXPECT_EQ(k.reduced_axes, (std::vector<int64_t>{1}));
  }
}

// Over a leading axis, columns up to max_staged_column long stay one normalization kernel;
// longer ones become column reductions and a pointwise epilogue, with no running pair.
TEST(PlannerTest, LongColumnsAreReducedByKernelsOfTheirOwn) {
  auto kinds = [](const Planned& p) {
    std::string k;
    for (const FusedKernel& kernel : p.plan.kernels) {
      absl::StrAppend(&k, KernelKindName(kernel.kind), kernel.online_sums.empty() ? " " : "+ ");
    }
    return k;
  };
  EXPECT_EQ(kinds(PlanOf({softmax(Input({512, 64}), 0)})), "normalization ");
  EXPECT_EQ(kinds(PlanOf({softmax(Input({513, 64}), 0)})), "reduction reduction pointwise ");
  // Rows (the trailing axis) of the same length stay one kernel.
  EXPECT_EQ(kinds(PlanOf({softmax(Input({64, 513}), 1)})), "normalization ");
  // A kept innermost axis narrower than a warp: no column schedule, the row limit applies.
  EXPECT_EQ(kinds(PlanOf({softmax(Input({600, 8}), 0)})), "normalization ");
}

// Rows longer than one block holds stay one normalization kernel where clusters may share
// them (cluster_blocks), up to max_staged_row x cluster_blocks.
TEST(PlannerTest, ClustersHoldLongRows) {
  FusionOptions clusters;
  clusters.cluster_blocks = 8;
  auto kernels = [](const Tensor& t, const FusionOptions& o) {
    return PlanOf({t}, o).plan.kernels.size();
  };
  const Tensor row = softmax(Input({2, 131072}), 1);
  EXPECT_EQ(kernels(row, clusters), 1u);
  EXPECT_EQ(kernels(row, FusionOptions{}), 2u);  // a streamed max and sum, then the epilogue
  EXPECT_EQ(kernels(softmax(Input({2, 131073}), 1), clusters), 2u);
  // 8-byte values: half as many a block.
  EXPECT_EQ(kernels(softmax(Input({2, 65536}, DType::kF64), 1), clusters), 1u);
  EXPECT_EQ(kernels(softmax(Input({2, 65537}, DType::kF64), 1), clusters), 2u);
  // Only few rows: with cluster_rows_below of them or more, a block a row fills the GPU.
  const int64_t few = clusters.cluster_rows_below - 1;
  EXPECT_EQ(kernels(layer_norm(Input({few, 20001}), Tensor(), Tensor()), clusters), 1u);
  EXPECT_GT(kernels(layer_norm(Input({few + 1, 20001}), Tensor(), Tensor()), clusters), 1u);
  // Columns have no streamed kernel: held by clusters at any count.
  EXPECT_EQ(kernels(softmax(Input({16384, 8192}), 0), clusters), 1u);
  EXPECT_EQ(DefaultFusionOptions(Target{9, 0, true}).cluster_blocks, 8);
  EXPECT_EQ(DefaultFusionOptions(Target{8, 0, false}).cluster_blocks, 1);
  setenv("TESSEL_CLUSTERS", "2", 1);  // a cap, e.g. to compare
  EXPECT_EQ(DefaultFusionOptions(Target{9, 0, true}).cluster_blocks, 2);
  setenv("TESSEL_CLUSTERS", "0", 1);
  EXPECT_EQ(DefaultFusionOptions(Target{9, 0, true}).cluster_blocks, 1);
  unsetenv("TESSEL_CLUSTERS");
  // TESSEL_STAGED_ROW lowers the longest row held (the fuzzer's --staged_row); never raises it.
  const Target ampere{8, 0, false};  // no clusters: rows past the limit stream
  setenv("TESSEL_STAGED_ROW", "128", 1);
  EXPECT_EQ(DefaultFusionOptions(ampere).max_staged_row, 128);
  EXPECT_EQ(kernels(softmax(Input({4, 128}), 1), DefaultFusionOptions(ampere)), 1u);
  EXPECT_EQ(kernels(softmax(Input({4, 129}), 1), DefaultFusionOptions(ampere)), 2u);  // streamed
  setenv("TESSEL_STAGED_ROW", "100000", 1);
  EXPECT_EQ(DefaultFusionOptions(ampere).max_staged_row, FusionOptions{}.max_staged_row);
  setenv("TESSEL_STAGED_ROW", "x", 1);  // a setting that reads as no row length is refused
  EXPECT_THROW(DefaultFusionOptions(ampere), Error);
  unsetenv("TESSEL_STAGED_ROW");
  setenv("TESSEL_CLUSTERS", "32", 1);
  EXPECT_THROW(DefaultFusionOptions(Target{9, 0, true}), Error);
  unsetenv("TESSEL_CLUSTERS");
}

// Many rows too long for a block's registers: a normalization holds each row in one block's
// shared memory (one kernel) where the rows' inputs fit its bytes; reductions alone still
// stream their rows online (one read), as does anything that does not fit.
TEST(PlannerTest, ManyLongRowsAreHeldInSharedMemory) {
  FusionOptions held;
  held.cluster_blocks = 8;
  held.max_held_row = 49152;
  held.held_row_bytes = 96 * 1024;
  const Tensor x = Input({512, 32768}, DType::kBF16);
  Planned p = PlanOf({softmax(x, 1)}, held);
  ASSERT_EQ(p.plan.kernels.size(), 1u) << p.text;
  EXPECT_EQ(p.plan.kernels[0].held_row_bytes, held.held_row_bytes);
  EXPECT_EQ(PlanOf({softmax(x, 1)}, FusionOptions{}).plan.kernels.size(), 2u);
  // Two inputs along the row (a residual) of 40 KB each; a layer norm's three reductions.
  const Tensor h = Input({512, 20000}, DType::kBF16);
  p = PlanOf({layer_norm(h + Input({512, 20000}, DType::kBF16), Input({20000}), Input({20000}))},
             held);
  EXPECT_EQ(p.plan.kernels.size(), 1u) << p.text;
  EXPECT_EQ(PlanOf({log_softmax(Input({300, 20001}), 1)}, held).plan.kernels.size(), 1u);
  // A reduction alone streams its rows online: one read, nothing to read again.
  p = PlanOf({logsumexp(x, {1})}, held);
  ASSERT_EQ(p.plan.kernels.size(), 1u) << p.text;
  EXPECT_EQ(p.plan.kernels[0].held_row_bytes, 0) << p.text;
  EXPECT_FALSE(p.plan.kernels[0].online_sums.empty()) << p.text;
  // Rows whose inputs take more than held_row_bytes (f32 of 32768: 128 KB; two bf16 inputs of
  // 32768), or longer than max_held_row, stream as before; few rows are held by clusters.
  EXPECT_EQ(PlanOf({softmax(Input({512, 32768}), 1)}, held).plan.kernels.size(), 2u);
  EXPECT_EQ(PlanOf({softmax(x + Input({512, 32768}, DType::kBF16), 1)}, held).plan.kernels.size(),
            2u);
  EXPECT_EQ(PlanOf({softmax(Input({512, 65536}, DType::kBF16), 1)}, held).plan.kernels.size(), 2u);
  p = PlanOf({softmax(Input({64, 32768}, DType::kBF16), 1)}, held);
  ASSERT_EQ(p.plan.kernels.size(), 1u) << p.text;
  EXPECT_EQ(p.plan.kernels[0].held_row_bytes, 0);
  // A value along the row that only the stores read joins (read once, from memory).
  p = PlanOf({softmax(x, 1) * Input({512, 32768}, DType::kBF16)}, held);
  ASSERT_EQ(p.plan.kernels.size(), 1u) << p.text;
  EXPECT_EQ(p.plan.kernels[0].inputs.size(), 2u) << p.text;
  // Rows over leading axes are not contiguous: never held.
  for (const FusedKernel& k :
       PlanOf({softmax(Input({32768, 512}, DType::kBF16), 0)}, held).plan.kernels) {
    EXPECT_EQ(k.held_row_bytes, 0);
  }
  // Hopper holds up to 200 KB a row: one block an SM past 96 KB.
  const FusionOptions hopper = DefaultFusionOptions(Target{9, 0, true});
  EXPECT_EQ(hopper.max_held_row, 102400);
  EXPECT_EQ(PlanOf({softmax(Input({512, 65536}, DType::kBF16), 1)}, hopper).plan.kernels.size(),
            1u);
  EXPECT_EQ(PlanOf({softmax(Input({512, 50001}), 1)}, hopper).plan.kernels.size(), 1u);
  EXPECT_GT(PlanOf({softmax(Input({512, 51300}), 1)}, hopper).plan.kernels.size(), 1u);
  EXPECT_EQ(DefaultFusionOptions(Target{8, 0, false}).held_row_bytes, 0);
  EXPECT_EQ(DefaultFusionOptions(Target{12, 0, true}).held_row_bytes, 0);  // 99 KB a block
  // Without clusters, few rows still stream: a block a row would leave SMs idle.
  FusionOptions no_clusters = held;
  no_clusters.cluster_blocks = 1;
  EXPECT_EQ(PlanOf({softmax(Input({4, 32000}, DType::kBF16), 1)}, no_clusters).plan.kernels.size(),
            2u);
  EXPECT_EQ(PlanOf({softmax(x, 1)}, no_clusters).plan.kernels.size(), 1u);
  // The fuzzer's sizes (TESSEL_STAGED_ROW=64): many rows held past 64 values, up to 192.
  setenv("TESSEL_STAGED_ROW", "64", 1);
  const FusionOptions small = DefaultFusionOptions(Target{9, 0, true});
  unsetenv("TESSEL_STAGED_ROW");
  EXPECT_EQ(small.max_held_row, 192);
  p = PlanOf({softmax(Input({300, 150}), 1)}, small);
  ASSERT_EQ(p.plan.kernels.size(), 1u) << p.text;
  EXPECT_GT(p.plan.kernels[0].held_row_bytes, 0) << p.text;
  EXPECT_EQ(PlanOf({softmax(Input({300, 193}), 1)}, small).plan.kernels.size(), 2u);
}

TEST(PlannerTest, SiblingReductionsShareOnePass) {
  Tensor x = Input({1 << 20});
  Planned p = PlanOf({sum(x), sum(x * x), max(x)});
  ASSERT_EQ(p.plan.kernels.size(), 1u) << p.text;
  EXPECT_EQ(p.plan.kernels[0].kind, KernelKind::kReduction);
  EXPECT_EQ(p.plan.kernels[0].outputs.size(), 3u);
  EXPECT_FALSE(p.plan.kernels[0].staged);  // a million-element row streams
}

// Many sibling reductions share kernels of at most max_group_reductions (NVRTC's time grows
// faster than a kernel's size).
TEST(PlannerTest, ManySiblingReductionsSplitIntoKernelsOfBoundedSize) {
  Tensor x = Input({8, 16});
  std::vector<Tensor> sums;
  for (int i = 0; i < 200; ++i) sums.push_back(sum(x * static_cast<double>(i), {1}));
  Planned p = PlanOf(sums);
  ASSERT_EQ(p.plan.kernels.size(), 4u) << p.text;  // 64 + 64 + 64 + 8
  for (const FusedKernel& k : p.plan.kernels) {
    EXPECT_EQ(k.kind, KernelKind::kReduction);
    EXPECT_LE(k.outputs.size(), 64u);
  }
}

TEST(PlannerTest, GemmTakesItsEpilogueAndSoftmaxFollows) {
  // The api.md example: one GEMM kernel with the bias and GELU, one softmax kernel.
  Tensor x = Input({64, 32}, DType::kBF16), w = Input({32, 128}, DType::kBF16);
  Tensor b = Input({128}, DType::kBF16);
  Planned p = PlanOf({softmax(gelu(matmul(x, w) + b))});
  ASSERT_EQ(p.plan.kernels.size(), 2u) << p.text;
  EXPECT_EQ(p.plan.kernels[0].kind, KernelKind::kGemm);
  EXPECT_EQ(p.plan.kernels[1].kind, KernelKind::kNormalization);
  // The GEMM writes the bf16 result; the softmax widens it as it reads.
  EXPECT_EQ(p.plan.kernels[0].outputs[0]->dtype(), DType::kBF16) << p.text;
  EXPECT_EQ(p.plan.kernels[1].depends_on, (std::vector<int>{0}));
}

TEST(PlannerTest, TransposedMatmulOperandsAreNotCopied) {
  Tensor a = Input({32, 64}, DType::kBF16), w = Input({128, 32}, DType::kBF16);
  // Realized operands: the GEMM reads both in place, transposed.
  Planned direct = PlanOf({matmul(transpose(a), transpose(w))});
  ASSERT_EQ(direct.plan.kernels.size(), 1u) << direct.text;
  EXPECT_EQ(direct.plan.kernels[0].inputs.size(), 2u) << direct.text;
  // A computed operand is written once, untransposed, and read transposed.
  Tensor scaled = a * 2.0;
  Planned computed = PlanOf({matmul(transpose(scaled), Input({32, 16}, DType::kBF16))});
  ASSERT_EQ(computed.plan.kernels.size(), 2u) << computed.text;
  EXPECT_EQ(computed.plan.kernels[0].outputs[0], &scaled.node()) << computed.text;
  EXPECT_TRUE(Contains(computed.text, "matmul operand")) << computed.text;
  // A transpose that is also read elsewhere is an ordinary value.
  Tensor t = transpose(a);
  Planned shared = PlanOf({matmul(t, Input({32, 16}, DType::kBF16)), t + 1.0});
  EXPECT_EQ(shared.plan.kernels.size(), 2u) << shared.text;
}

TEST(PlannerTest, BatchReshapedMatmulOperandsAreNotCopied) {
  // Heads split ([6, ..] as [2, 3, ..]) and a transpose of a reshape: both read in place.
  Tensor a = Input({6, 40, 24}, DType::kBF16), w = Input({3, 32, 24}, DType::kBF16);
  Planned p = PlanOf({matmul(reshape(a, {2, 3, 40, 24}), transpose(reshape(w, {1, 3, 32, 24})))});
  ASSERT_EQ(p.plan.kernels.size(), 1u) << p.text;
  EXPECT_EQ(p.plan.kernels[0].inputs.size(), 2u) << p.text;
  // A reshape that moves rows between matrices is copied.
  Planned moved = PlanOf({matmul(reshape(a, {6, 20, 48}), Input({48, 8}, DType::kBF16))});
  EXPECT_EQ(moved.plan.kernels.size(), 2u) << moved.text;
}

TEST(PlannerTest, IndependentPointwiseOutputsShareALaunch) {
  Tensor a = Input({256}), b = Input({256}), c = Input({4096});
  Planned p = PlanOf({exp(a), b * 2.0, c - 0.01 * c});
  ASSERT_EQ(p.plan.kernels.size(), 1u) << p.text;
  EXPECT_EQ(p.plan.kernels[0].segments, (std::vector<Shape>{Shape{256}, Shape{4096}}));
  EXPECT_EQ(p.plan.kernels[0].outputs.size(), 3u);
}

// A shared launch is bounded in outputs and in the inline cost of what it computes.
TEST(PlannerTest, SharedLaunchesAreBoundedInSize) {
  const Tensor x = Input({256});
  std::vector<Tensor> scaled, sines;
  for (int i = 0; i < 7; ++i) scaled.push_back(x * double(i));
  for (int i = 0; i < 5; ++i) sines.push_back(sin(x + double(i)));  // full, add, sin: cost 6
  FusionOptions options;
  options.max_pointwise_outputs = 3;
  EXPECT_EQ(PlanOf(scaled, options).plan.kernels.size(), 3u);  // 3 + 3 + 1
  options.max_pointwise_cost = 12;
  EXPECT_EQ(PlanOf(sines, options).plan.kernels.size(), 3u);  // 2 + 2 + 1
  const Planned one = PlanOf(scaled);
  ASSERT_EQ(one.plan.kernels.size(), 1u) << one.text;
  EXPECT_EQ(one.plan.kernels[0].outputs.size(), 7u);
}

// A kernel evaluates every operand of a concat at each position: a concat of 300 tensors
// (recorded as concats of at most 16) runs as a few kernels of at most 16 operands a concat,
// the inner concats written; a small nested concat stays one kernel.
TEST(PlannerTest, ConcatsOfManyTensorsAreWrittenInParts) {
  std::vector<Tensor> parts;
  for (int i = 0; i < 300; ++i) parts.push_back(Input({3}) + double(i));
  const Planned p = PlanOf({concat(parts, 0)});
  EXPECT_LE(p.plan.kernels.size(), 8u) << p.text;  // shared launches of inline cost <= 256
  for (const FusedKernel& k : p.plan.kernels) {
    for (const Node* n : k.nodes) {
      if (n->op() == OpKind::kConcat) {
        EXPECT_LE(n->inputs().size(), 16u);
      }
    }
    EXPECT_LE(k.inputs.size(), 256u) << p.text;
  }
  EXPECT_TRUE(Contains(p.text, "a part of a concat of more than 16 operands")) << p.text;
  const Tensor a = Input({4}), b = Input({2});
  EXPECT_EQ(PlanOf({concat({concat({a, b}, 0), exp(a)}, 0)}).plan.kernels.size(), 1u);
}

TEST(PlannerTest, CheapSharedValuesAreRecomputed) {
  Tensor x = Input({16, 32});
  Tensor e = x * 3.0;  // cost 2: both reductions recompute it
  Planned p = PlanOf({sum(e, {0}), sum(e, {1})});
  EXPECT_EQ(p.plan.kernels.size(), 2u) << p.text;
  for (const FusedKernel& k : p.plan.kernels) EXPECT_EQ(k.inputs[0], &x.node()) << p.text;
}

TEST(PlannerTest, CostlySharedValuesAreWrittenOnce) {
  Tensor x = Input({16, 32});
  Tensor e = tanh(exp(sin(x)));  // cost 12
  Planned p = PlanOf({sum(e, {0}), sum(e, {1})});
  ASSERT_EQ(p.plan.kernels.size(), 3u) << p.text;
  EXPECT_EQ(p.plan.kernels[0].kind, KernelKind::kPointwise);
  EXPECT_TRUE(Contains(p.text,
                       "needed by 2 kernels and costs 12 to recompute (limit 8): "
                       "written once"))
      << p.text;
}

// A kernel computes a chain of operations of inline cost at most max_inline_depth: the value
// at the limit is written and the next kernel reads it, whether the chain floats
// (pointwise), joins a GEMM's epilogue or feeds a reduction; a transcendental op weighs 4.
TEST(PlannerTest, LongChainsAreWrittenAtTheDepthLimit) {
  FusionOptions options;
  options.max_inline_depth = 4;
  auto chain = [](Tensor t) {
    for (int i = 0; i < 10; ++i) t = t + 1.0;  // a scalar's full and an add: depth 1 each add
    return t;
  };
  const Tensor x = Input({16, 32});
  const Tensor w = Input({32, 8});
  Planned pointwise = PlanOf({chain(x)}, options);
  EXPECT_EQ(pointwise.plan.kernels.size(), 4u) << pointwise.text;  // adds 1-3, 4-6, 7-9, 10
  EXPECT_TRUE(Contains(pointwise.text,
                       "ends a chain of operations of inline cost 4 (the most one kernel "
                       "computes)"))
      << pointwise.text;
  // The GEMM computes adds 1 and 2; the third, at the limit, is written by a kernel of its
  // own, as no group takes a value at the limit.
  Planned epilogue = PlanOf({chain(matmul(x, w))}, options);
  ASSERT_EQ(epilogue.plan.kernels.size(), 5u) << epilogue.text;
  EXPECT_EQ(epilogue.plan.kernels[0].kind, KernelKind::kGemm);
  Planned reduced = PlanOf({sum(chain(x), {1})}, options);
  ASSERT_EQ(reduced.plan.kernels.size(), 4u) << reduced.text;
  EXPECT_EQ(reduced.plan.kernels[3].kind, KernelKind::kReduction);
  options.max_inline_depth = 8;
  Tensor e = x;
  for (int i = 0; i < 5; ++i) e = exp(e);
  EXPECT_EQ(PlanOf({e}, options).plan.kernels.size(), 3u);  // exps 1-2, 3-4, 5
  options.max_inline_depth = 400;
  EXPECT_EQ(PlanOf({chain(x)}, options).plan.kernels.size(), 1u);
}

TEST(PlannerTest, UnfusedModeIsOneKernelPerOperation) {
  Tensor x = Input({8});
  Planned p = PlanOf({softmax(x)}, FusionOptions{/*fuse=*/false});
  EXPECT_EQ(p.plan.kernels.size(), 5u) << p.text;  // max, sub, exp, sum, div
}

// Negative tests: each refusal reason, by name.

TEST(PlannerRefusalTest, ReductionAxesDiffer) {
  Tensor x = Input({16, 32});
  Planned p = PlanOf({sum(x, {0}), sum(x, {1})});
  EXPECT_EQ(p.plan.kernels.size(), 2u);
  EXPECT_TRUE(Contains(p.text, "not fused into kernel 0: reduction axes differ")) << p.text;
}

TEST(PlannerRefusalTest, RowsTooLongToHoldOnChip) {
  FusionOptions options;
  options.max_staged_row = 4;
  // A variance's second reduction needs the mean of the same rows before it reads them.
  Tensor x = Input({4, 8});
  Planned p = PlanOf({var(x, {1})}, options);
  EXPECT_EQ(p.plan.kernels.size(), 2u) << p.text;  // the mean; the sum of squares
  EXPECT_TRUE(Contains(p.text, "rows of 8 elements are too long to hold on chip")) << p.text;
  // softmax: the max and the sum of exp(x - max) in one pass (online), then the divide.
  p = PlanOf({softmax(x)}, options);
  ASSERT_EQ(p.plan.kernels.size(), 2u) << p.text;
  EXPECT_EQ(p.plan.kernels[0].online_sums.size(), 1u) << p.text;
  EXPECT_TRUE(Contains(p.text, "accumulates online with the max of the same rows")) << p.text;
  EXPECT_TRUE(Contains(p.text, "the reduced rows are too long to hold on chip")) << p.text;
}

// The online pairing takes only sum(exp(y - shift(max(y)))) in f32 or f64: a sum of another
// function of the max, or of a different value, stays a second pass.
TEST(PlannerRefusalTest, OnlineSumsOnlyWhereTheMathIsTheSame) {
  FusionOptions options;
  options.max_staged_row = 4;
  Tensor x = Input({4, 8}), y = Input({4, 8});
  const Tensor m = max(x, {1}, true);
  for (const Tensor& not_online :
       {sum(exp(y - m), {1}), sum(exp(x * 2.0 - m), {1}), sum(tanh(x - m), {1}),
        sum(exp(x - m * 2.0), {1}), sum(exp(cast(x, DType::kBF16) - cast(m, DType::kBF16)), {1})}) {
    Planned p = PlanOf({not_online}, options);
    EXPECT_EQ(p.plan.kernels.size(), 2u) << p.text;
    EXPECT_FALSE(Contains(p.text, "online")) << p.text;
  }
  Planned p = PlanOf({logsumexp(x, {1})}, options);
  EXPECT_EQ(p.plan.kernels.size(), 1u) << p.text;
  EXPECT_TRUE(Contains(p.text, "online")) << p.text;
  // Terms realized earlier are leaves without inputs: no pairing, and nothing read past them.
  for (int which = 0; which < 3; ++which) {
    const Tensor shifted = x - m, e = exp(shifted), finite = isfinite(m);
    realize({which == 0 ? e : which == 1 ? shifted : finite});
    const Tensor sums = which == 2 ? sum(exp(x - where(finite, m, 0.0)), {1})
                                   : sum(exp(shifted), {1}) + sum(e, {1});
    p = PlanOf({sums}, options);
    EXPECT_FALSE(Contains(p.text, "online")) << which << p.text;
  }
}

TEST(PlannerRefusalTest, MergeWouldCreateACycle) {
  // r feeds a GEMM; a node reading both r and the GEMM cannot join r's kernel, which the
  // GEMM waits for.
  Tensor x = Input({4, 8});
  Tensor r = sum(x, {1}, true);         // [4,1], kernel 0
  Tensor m = matmul(r, Input({1, 8}));  // [4,8], kernel 1 reads r
  Planned p = PlanOf({r + m});
  EXPECT_TRUE(Contains(p.text, "not fused into kernel 0: merge would create a cycle")) << p.text;
  ASSERT_EQ(p.plan.kernels.size(), 2u);
  EXPECT_EQ(p.plan.kernels[1].kind, KernelKind::kGemm);  // the add joins the epilogue
}

TEST(PlannerRefusalTest, ReadsTheGroupThroughAView) {
  // y joins the row group; y + y^T^T reads y at remapped positions through the views.
  Tensor x = Input({4, 8});
  Tensor y = x - max(x, {1}, true);
  Planned p = PlanOf({y + transpose(transpose(y))});
  EXPECT_EQ(p.plan.kernels.size(), 2u) << p.text;
  EXPECT_TRUE(Contains(p.text, "reads the group's values at other positions (through a view)"))
      << p.text;
}

TEST(PlannerRefusalTest, ShapeIsNotTheIterationSpace) {
  Tensor m = matmul(Input({4, 8}), Input({8, 8}));
  Planned p = PlanOf({m + Input({2, 4, 8})});
  EXPECT_EQ(p.plan.kernels.size(), 2u) << p.text;
  EXPECT_TRUE(Contains(p.text, "its shape [2,4,8] is not the kernel's iteration space")) << p.text;
}

FusionOptions GemmGroups() {
  FusionOptions options;
  options.gemm_groups = true;
  return options;
}

TEST(PlannerTest, SiblingGemmsShareOneKernel) {
  // q, k and v of one x, each with its own epilogue: one GEMM kernel, x read once.
  const DType b16 = DType::kBF16;
  Tensor x = Input({64, 128}, b16), r = Input({64, 32}, b16);
  Tensor q = matmul(x, Input({128, 64}, b16)), k = gelu(matmul(x, Input({128, 32}, b16)));
  Tensor v = matmul(x, transpose(Input({32, 128}, b16))) + r;
  Planned p = PlanOf({q, k, v}, GemmGroups());
  ASSERT_EQ(p.plan.kernels.size(), 2u) << p.text;  // v's B is stored the other way round
  const FusedKernel& g = p.plan.kernels[0];
  EXPECT_EQ(g.gemm_parts.size(), 2u) << p.text;
  EXPECT_EQ(g.outputs.size(), 2u) << p.text;
  EXPECT_EQ(std::count(g.inputs.begin(), g.inputs.end(), &x.node()), 1) << p.text;
  EXPECT_TRUE(Contains(p.text, "reads the same A as 1 other GEMM of this kernel: one launch"))
      << p.text;
  EXPECT_TRUE(Contains(p.text, "its B is stored the other way round")) << p.text;
  Tensor v2 = matmul(x, Input({128, 32}, b16)) + r;
  Planned three = PlanOf({q, k, v2}, GemmGroups());
  ASSERT_EQ(three.plan.kernels.size(), 1u) << three.text;
  EXPECT_EQ(three.plan.kernels[0].gemm_parts.size(), 3u) << three.text;
  EXPECT_EQ(three.plan.kernels[0].gemm_parts[0], three.plan.kernels[0].matmul);
  // Off (the default options, as on targets without wgmma): one kernel a GEMM.
  EXPECT_EQ(PlanOf({q, k, v2}).plan.kernels.size(), 3u);
}

TEST(PlannerTest, SwiGluIsOneDualGemm) {
  // silu(x wg) * (x wu): one kernel computing both products, neither written; with the down
  // projection, two kernels.
  const DType b16 = DType::kBF16;
  Tensor x = Input({64, 128}, b16), wg = Input({128, 256}, b16), wu = Input({128, 256}, b16);
  Tensor h = silu(matmul(x, wg)) * matmul(x, wu);
  Planned p = PlanOf({h}, GemmGroups());
  ASSERT_EQ(p.plan.kernels.size(), 1u) << p.text;
  const FusedKernel& k = p.plan.kernels[0];
  EXPECT_EQ(k.gemm_form, GemmForm::kDual) << p.text;
  EXPECT_EQ(k.gemm_parts.size(), 2u) << p.text;
  EXPECT_EQ(k.outputs, (std::vector<const Node*>{&h.node()})) << p.text;
  EXPECT_TRUE(Contains(p.text, "one dual GEMM computes both for each output tile")) << p.text;
  Planned mlp = PlanOf({matmul(h, Input({256, 128}, b16))}, GemmGroups());
  EXPECT_EQ(mlp.plan.kernels.size(), 2u) << mlp.text;
  // The gate also an output: written from the dual kernel's epilogue.
  Tensor gate = matmul(x, wg);
  Planned both = PlanOf({silu(gate) * matmul(x, wu), gate}, GemmGroups());
  ASSERT_EQ(both.plan.kernels.size(), 1u) << both.text;
  EXPECT_EQ(both.plan.kernels[0].outputs.size(), 2u) << both.text;
}

TEST(PlannerTest, IndependentGemmsAreOneGroupedKernel) {
  // Experts of different row counts (one row included), each with its own epilogue; an f32
  // one runs apart; a GEMM that reads another's result waits for it.
  const DType b16 = DType::kBF16;
  std::vector<Tensor> outs;
  for (int64_t m : {1, 50, 7, 33}) {
    outs.push_back(gelu(matmul(Input({m, 64}, b16), Input({64, 136}, b16))));
  }
  outs.push_back(matmul(Input({8, 64}), Input({64, 64})));
  Planned p = PlanOf(outs, GemmGroups());
  ASSERT_EQ(p.plan.kernels.size(), 2u) << p.text;
  EXPECT_EQ(p.plan.kernels[0].gemm_form, GemmForm::kGrouped) << p.text;
  EXPECT_EQ(p.plan.kernels[0].gemm_parts.size(), 4u) << p.text;
  EXPECT_TRUE(Contains(p.text, "runs in one launch with 3 independent GEMMs")) << p.text;
  Tensor h = matmul(Input({64, 64}, b16), Input({64, 64}, b16));
  Planned chain = PlanOf({matmul(h, Input({64, 64}, b16))}, GemmGroups());
  EXPECT_EQ(chain.plan.kernels.size(), 2u) << chain.text;
  EXPECT_FALSE(Contains(chain.text, "not fused")) << chain.text;  // nothing to explain
}

TEST(PlannerRefusalTest, DependentGemmsAreNotGrouped) {
  // Both read x; the second's epilogue reads the first's result transposed (written, then
  // read at other positions). Met at the same positions, they are a dual GEMM.
  const DType b16 = DType::kBF16;
  Tensor x = Input({64, 64}, b16);
  Tensor h = matmul(x, Input({64, 64}, b16));
  Planned p = PlanOf({matmul(x, Input({64, 64}, b16)) + transpose(h)}, GemmGroups());
  EXPECT_EQ(p.plan.kernels.size(), 2u) << p.text;
  EXPECT_TRUE(Contains(p.text, "one reads what the other computes")) << p.text;
  Planned met = PlanOf({matmul(x, Input({64, 64}, b16)) + h}, GemmGroups());
  ASSERT_EQ(met.plan.kernels.size(), 1u) << met.text;
  EXPECT_EQ(met.plan.kernels[0].gemm_form, GemmForm::kDual) << met.text;
}

TEST(PlannerRefusalTest, AChainOfTheSameAIsNoPair) {
  // Two hops of graph propagation: z reads y as its B. Neither dual nor siblings.
  const DType b16 = DType::kBF16;
  Tensor a = Input({64, 64}, b16);
  Tensor y = matmul(a, Input({64, 32}, b16));
  Planned p = PlanOf({matmul(a, y), matmul(a, relu(y))}, GemmGroups());
  ASSERT_EQ(p.plan.kernels.size(), 2u) << p.text;  // y (and relu(y)), then both readers
  for (const FusedKernel& k : p.plan.kernels) EXPECT_NE(k.gemm_form, GemmForm::kDual) << p.text;
  EXPECT_EQ(p.plan.kernels[0].outputs[0], &y.node()) << p.text;
  EXPECT_EQ(p.plan.kernels[1].gemm_parts.size(), 2u) << p.text;  // siblings of a
}

TEST(PlannerRefusalTest, SiblingsCallNothingWithAStackFrame) {
  // A rotary table in f64 (cos), inlined into both epilogues: NVRTC cannot compile its
  // stack frame into the Hopper kernel, so the GEMMs stay apart (on the mma.sync kernel).
  const DType b16 = DType::kBF16;
  Tensor x = Input({64, 64}, b16);
  Tensor c = cast(cos(Input({64, 64}, DType::kF64)), b16);
  Planned p = PlanOf({matmul(x, Input({64, 64}, b16)) * c, matmul(x, Input({64, 64}, b16)) * c},
                     GemmGroups());
  EXPECT_EQ(p.plan.kernels.size(), 2u) << p.text;
  EXPECT_TRUE(Contains(p.text, "its epilogue calls f64 sin or cos")) << p.text;
}

TEST(PlannerRefusalTest, SiblingsNeedTensorCoreOperandsAsStored) {
  const DType b16 = DType::kBF16;
  Tensor x = Input({64, 64}, b16);
  Planned rows =
      PlanOf({matmul(x, Input({64, 64}, b16)), matmul(x, Input({64, 45}, b16))}, GemmGroups());
  EXPECT_EQ(rows.plan.kernels.size(), 2u) << rows.text;
  EXPECT_TRUE(Contains(rows.text, "B's rows of 45 bf16 values are not 16-byte multiples"))
      << rows.text;
  Tensor f = Input({64, 64});
  Planned f32 = PlanOf({matmul(f, Input({64, 64})), matmul(f, Input({64, 64}))}, GemmGroups());
  EXPECT_EQ(f32.plan.kernels.size(), 2u) << f32.text;
  EXPECT_TRUE(Contains(f32.text, "its operands are f32 and f32")) << f32.text;
}

TEST(PlannerTest, PlansAreDeterministic) {
  auto build = [] {
    Tensor x = Input({8, 16});
    return PlanOf({softmax(x), sum(x * x, {1}), exp(x)}).text;
  };
  EXPECT_EQ(build(), build());
}

}  // namespace
}  // namespace tessel
