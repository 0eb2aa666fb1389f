// Dynamic rows: which extents the backend learns to pass as arguments, and the kernels that
// take them: one source per bucket of batch sizes, compiled by NVRTC for both targets.
#include "backend/dynamic_extents.h"

#include <set>
#include <vector>

#include "backend/compile.h"
#include "codegen/generate.h"
#include "core/realize.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
#include "tessel.h"

namespace tessel::backend {
namespace {

Tensor In(Shape s, DType dtype = DType::kBF16) {
  return Tensor(MakeInputNode(dtype, Device::kCPU, s, nullptr));
}

// The MLP block of a batch of `b` rows: two GEMMs with their epilogues.
struct Block {
  Tensor w1 = In({256, 512}), b1 = In({512}), w2 = In({512, 256}), b2 = In({256});
  Tensor Of(int64_t b) {
    const Tensor x = In({b, 256});
    return matmul(gelu(matmul(x, w1) + b1), w2) + b2 + x;
  }
};

struct Recorded {
  Tensor out;
  Program program;
  OrderedProgram ordered;
};
Recorded RecordOf(const Tensor& out) {
  Recorded r{out, CollectProgram({&out.node()}), {}};
  r.ordered = OrderProgram(r.program);
  return r;
}
Recorded Record(Block& block, int64_t b) { return RecordOf(block.Of(b)); }

std::optional<DynamicChoice> Choose(const Recorded& r, Family& family) {
  return ChooseDynamicRows(r.ordered, ExtentsAndBounds(r.ordered), family);
}

TEST(DynamicExtentsTest, TheBatchBecomesDynamicInPowerOfTwoBuckets) {
  Block block;
  Family family;
  EXPECT_FALSE(Choose(Record(block, 1), family).has_value());  // the first: specialized
  const Recorded b5 = Record(block, 5);
  const std::optional<DynamicChoice> c5 = Choose(b5, family);
  ASSERT_TRUE(c5.has_value());
  EXPECT_EQ(c5->rows, 5);
  EXPECT_EQ(c5->bucket, 2);
  EXPECT_EQ(c5->dynamic.max, 7);
  EXPECT_TRUE(c5->dynamic.Has(&b5.out.node()));
  EXPECT_FALSE(c5->dynamic.Has(&block.w1.node()));
  const std::optional<DynamicChoice> c300 = Choose(Record(block, 300), family);
  ASSERT_TRUE(c300.has_value());
  EXPECT_EQ(c300->bucket, 8);
  EXPECT_EQ(c300->dynamic.max, 511);
  // A batch equal to a static extent is ambiguous: specialized.
  EXPECT_FALSE(Choose(Record(block, 256), family).has_value());
}

TEST(DynamicExtentsTest, ExtentsThatAreNotOneLeadingBatchAreSpecialized) {
  auto program = [](int64_t a, int64_t b) { return RecordOf(In({a, b}) * 2.0); };
  Family inner;
  EXPECT_FALSE(Choose(program(8, 16), inner).has_value());
  EXPECT_FALSE(Choose(program(8, 32), inner).has_value());  // a trailing extent varies
  Family leading;
  EXPECT_FALSE(Choose(program(8, 16), leading).has_value());
  EXPECT_TRUE(Choose(program(9, 16), leading).has_value());
  EXPECT_FALSE(Choose(program(1, 16), leading).has_value());  // a batch of one
}

// Reversing the batch axis reads at B - 1 - row, a literal in the kernel: the kernel that
// flips is specialized, while the batch's other kernels take it. Reversing another axis, or
// striding along one, keeps the batch dynamic.
TEST(DynamicExtentsTest, FlippingTheBatchIsSpecialized) {
  auto program = [](int64_t b, std::vector<int> axes) {
    const Tensor x = In({b, 16});
    return RecordOf(concat({flip(x, axes) * 2.0, exp(x)}, 1));
  };
  Family batch, other;
  EXPECT_FALSE(Choose(program(8, {0}), batch).has_value());
  const Recorded flipped = program(9, {0});
  const std::optional<DynamicChoice> c = Choose(flipped, batch);
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(c->dynamic.fixed_math.size(), 1u);
  EXPECT_EQ((*c->dynamic.fixed_math.begin())->op(), OpKind::kFlip);
  const codegen::GeneratedPlan g =
      codegen::PlanAndGenerateWithRows(flipped.program, Target{}, c->dynamic);
  ASSERT_EQ(g.specialized.size(), 1u);
  EXPECT_TRUE(g.specialized[0].fixed);
  EXPECT_FALSE(g.kernels[g.specialized[0].kernel].takes_rows);
  // A flip written before (a leaf now) is read like any value of the batch.
  Family leaf;
  auto realized = [](int64_t b) {
    const Tensor x =
        from_vector(std::vector<float>(b * 16, 1.0f), {b, 16}, DType::kF32, Device::kCPU);
    const Tensor f = flip(x * 1.5, {0});
    realize({f});
    return RecordOf(f * 2.0);
  };
  EXPECT_FALSE(Choose(realized(8), leaf).has_value());
  const Recorded r9 = realized(9);
  const std::optional<DynamicChoice> read = Choose(r9, leaf);
  ASSERT_TRUE(read.has_value());
  EXPECT_TRUE(read->dynamic.fixed_math.empty());
  EXPECT_TRUE(
      codegen::PlanAndGenerateWithRows(r9.program, Target{}, read->dynamic).specialized.empty());
  EXPECT_FALSE(Choose(program(8, {1}), other).has_value());
  EXPECT_TRUE(Choose(program(9, {1}), other).has_value());
  Family strided;
  auto every_other = [](int64_t b) { return RecordOf(slice(In({b, 16}), 1, 0, 16, 2) + 1.0); };
  EXPECT_FALSE(Choose(every_other(8), strided).has_value());
  EXPECT_TRUE(Choose(every_other(9), strided).has_value());
}

// Generates every kernel of the block at batch `b` with dynamic rows learned from 3 and `b`.
std::vector<codegen::KernelSource> DynamicKernels(Block& block, int64_t b, const Target& target) {
  Family family;
  Choose(Record(block, 3), family);
  const Recorded r = Record(block, b);
  const std::optional<DynamicChoice> choice = Choose(r, family);
  EXPECT_TRUE(choice.has_value());
  std::vector<codegen::SpecializedKernel> specialized;
  std::vector<codegen::KernelSource> sources = codegen::GeneratePlanWithRows(
      PlanFusion(r.program, DefaultFusionOptions()), target, choice->dynamic, &specialized);
  EXPECT_TRUE(specialized.empty());
  return sources;
}

TEST(DynamicExtentsTest, OneSourcePerBucketTakingRowsAndCompiling) {
  if (!runtime::NvrtcVersion().ok()) GTEST_SKIP() << "NVRTC is not installed";
  Block block;
  for (const Target& target : {Target{9, 0, true}, Target{8, 0, false}, Target{7, 5, false}}) {
    SCOPED_TRACE(target.Name());
    const std::vector<codegen::KernelSource> at_70 = DynamicKernels(block, 70, target);
    const std::vector<codegen::KernelSource> at_127 = DynamicKernels(block, 127, target);
    ASSERT_EQ(at_70.size(), 2u);  // two GEMMs with their epilogues
    ASSERT_EQ(at_127.size(), at_70.size());
    for (size_t i = 0; i < at_70.size(); ++i) {
      EXPECT_TRUE(at_70[i].takes_rows);
      EXPECT_EQ(at_70[i].source, at_127[i].source);
      EXPECT_EQ(at_70[i].source.find("127"), std::string::npos) << at_70[i].source;
      if (target.major < 8) continue;  // sm_75 checks the SIMT kernel's text only
      absl::StatusOr<runtime::CompileOutput> out = Compile(at_70[i], target);
      EXPECT_TRUE(out.ok()) << out.status().message() << "\n" << at_70[i].source;
    }
  }
}

TEST(DynamicExtentsTest, PointwiseKernelsTakeRows) {
  if (!runtime::NvrtcVersion().ok()) GTEST_SKIP() << "NVRTC is not installed";
  auto kernels = [](int64_t b) {
    Family family;
    auto record = [](int64_t rows) {
      return RecordOf(tanh(In({rows, 3, 5}, DType::kF32) * 2.0) + In({5}, DType::kF32));
    };
    Choose(record(2), family);
    const Recorded r = record(b);
    const std::optional<DynamicChoice> choice = Choose(r, family);
    const FusionPlan plan = PlanFusion(r.program, DefaultFusionOptions());
    EXPECT_EQ(plan.kernels.size(), 1u);
    return codegen::GenerateWithRows(plan.kernels[0], Target{}, choice->dynamic);
  };
  const std::optional<codegen::KernelSource> a = kernels(33), b = kernels(60);
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_TRUE(a->takes_rows);
  EXPECT_EQ(a->source, b->source);
  EXPECT_EQ(a->launches[0].rows_grid.mul, 15);
  absl::StatusOr<runtime::CompileOutput> out = Compile(*a, Target{});
  EXPECT_TRUE(out.ok()) << out.status().message() << "\n" << a->source;
}

TEST(DynamicExtentsTest, NormalizationsOverRowsTakeRows) {
  if (!runtime::NvrtcVersion().ok()) GTEST_SKIP() << "NVRTC is not installed";
  const Tensor w = In({96}, DType::kF32), bias = In({96}, DType::kF32);
  auto kernels = [&](int64_t b) {
    auto record = [&](int64_t rows) {
      return RecordOf(softmax(layer_norm(In({rows, 4, 96}, DType::kF32), w, bias) * 2.0));
    };
    Family family;
    Choose(record(2), family);
    const Recorded r = record(b);
    const std::optional<DynamicChoice> choice = Choose(r, family);
    std::vector<std::string> sources;
    for (const FusedKernel& k : PlanFusion(r.program, DefaultFusionOptions()).kernels) {
      std::optional<codegen::KernelSource> ks =
          codegen::GenerateWithRows(k, Target{}, choice->dynamic);
      EXPECT_TRUE(ks.has_value()) << KernelKindName(k.kind);
      if (!ks.has_value()) continue;
      EXPECT_TRUE(ks->takes_rows);
      EXPECT_EQ(ks->launches[0].rows_grid.mul, 4);
      absl::StatusOr<runtime::CompileOutput> out = Compile(*ks, Target{});
      EXPECT_TRUE(out.ok()) << out.status().message() << "\n" << ks->source;
      sources.push_back(ks->source);
    }
    return sources;
  };
  const std::vector<std::string> a = kernels(33);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, kernels(60));
}

// A reduction of the whole batch to one value streams it, the row's length from the rows
// argument: one source for the bucket, in one chunk or several (a mean's divisor too); a
// scan along the batch keeps it in the source and is specialized.
TEST(DynamicExtentsTest, ReductionsOfTheWholeBatchStreamIt) {
  if (!runtime::NvrtcVersion().ok()) GTEST_SKIP() << "NVRTC is not installed";
  for (int64_t per_row : {96, 4096}) {
    auto source = [&](int64_t b) {
      auto record = [&](int64_t rows) {
        const Tensor x = In({rows, per_row}, DType::kBF16);
        return RecordOf(concat({reshape(mean(x * x), {1}), reshape(max(x), {1})}, 0));
      };
      Family family;
      Choose(record(2), family);
      const Recorded r = record(b);
      const std::optional<DynamicChoice> choice = Choose(r, family);
      EXPECT_TRUE(choice.has_value());
      for (const FusedKernel& k : PlanFusion(r.program, DefaultFusionOptions()).kernels) {
        if (k.kind != KernelKind::kReduction) continue;
        std::optional<codegen::KernelSource> ks =
            codegen::GenerateWithRows(k, Target{9, 0, true}, choice->dynamic);
        EXPECT_TRUE(ks.has_value());
        if (!ks.has_value()) return std::string();
        EXPECT_TRUE(ks->takes_rows);
        absl::StatusOr<runtime::CompileOutput> out = Compile(*ks, Target{9, 0, true});
        EXPECT_TRUE(out.ok()) << out.status().message() << "\n" << ks->source;
        return ks->schedule + ks->source;
      }
      return std::string();
    };
    const std::string a = source(40);
    EXPECT_EQ(a, source(63)) << per_row;
    EXPECT_NE(a.find(per_row == 96 ? "a block per row, streamed" : "chunks, then combined"),
              std::string::npos)
        << a;
  }
  auto scan = [](int64_t rows) { return RecordOf(cumsum(In({rows, 96}, DType::kF32), 0)); };
  Family family;
  Choose(scan(2), family);
  const Recorded r = scan(50);
  const std::optional<DynamicChoice> choice = Choose(r, family);
  ASSERT_TRUE(choice.has_value());
  const FusionPlan plan = PlanFusion(r.program, DefaultFusionOptions());
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_FALSE(codegen::GenerateWithRows(plan.kernels[0], Target{}, choice->dynamic).has_value());
}

// A training step's backward pass reads the batch through transposed views: on Hopper with
// 16-bit values the weight gradients' GEMMs take it as their K, and every kernel takes the
// batch, one source for the bucket (NVRTC compiles each GEMM for sm_90a); f32 GEMMs (SIMT)
// cannot, and are made per batch size. The loss's mean of everything streams the batch.
TEST(DynamicExtentsTest, ATrainingStepSpecializesOnlyWhatHoldsTheBatchElsewhere) {
  if (!runtime::NvrtcVersion().ok()) GTEST_SKIP() << "NVRTC is not installed";
  for (DType dtype : {DType::kBF16, DType::kF32}) {
    SCOPED_TRACE(DTypeName(dtype));
    const Tensor w1 = In({64, 128}, dtype), b1 = In({128}, dtype), w2 = In({128, 64}, dtype);
    auto step = [&](int64_t b) {
      const Tensor x = In({b, 64}, dtype), t = In({b, 64}, dtype);
      const Tensor a = matmul(x, w1) + b1, h = tanh(a), y = matmul(h, w2);
      const Tensor dy = (y - t) * 0.5, dh = matmul(dy, transpose(w2)) * (1.0 - h * h);
      const Tensor dw1 = matmul(transpose(x), dh), db1 = sum(dh, {0});
      const Tensor dw2 = matmul(transpose(h), dy), loss = mean(dy * dy);
      return RecordOf(concat({reshape(w1 - 0.1 * dw1, {-1}), b1 - 0.1 * db1,
                              reshape(w2 - 0.1 * dw2, {-1}), reshape(loss, {1})},
                             0));
    };
    Family family;
    Choose(step(20), family);
    std::vector<std::vector<std::string>> taking, made;
    for (int64_t b : {40, 50}) {
      const Recorded r = step(b);
      const std::optional<DynamicChoice> c = Choose(r, family);
      ASSERT_TRUE(c.has_value()) << b;
      EXPECT_FALSE(c->dynamic.fixed.empty());  // transpose(x), transpose(h)
      const codegen::GeneratedPlan g =
          codegen::PlanAndGenerateWithRows(r.program, Target{9, 0, true}, c->dynamic);
      std::vector<bool> specialized(g.kernels.size(), false);
      for (const codegen::SpecializedKernel& s : g.specialized) specialized[s.kernel] = true;
      taking.emplace_back();
      made.emplace_back();
      for (size_t i = 0; i < g.kernels.size(); ++i) {
        if (specialized[i]) {
          EXPECT_FALSE(g.kernels[i].takes_rows) << g.kernels[i].name;
          made.back().push_back(g.kernels[i].source);
        } else if (g.kernels[i].takes_rows) {
          taking.back().push_back(g.kernels[i].source);
          if (b != 40 || g.kernels[i].kind != "gemm") continue;
          absl::StatusOr<runtime::CompileOutput> out = Compile(g.kernels[i], Target{9, 0, true});
          EXPECT_TRUE(out.ok()) << out.status().message() << "\n" << g.kernels[i].source;
        }
      }
    }
    // The forward GEMMs, dh's GEMM, db1's column sum, the loss; 16-bit: dw1's and dw2's GEMMs.
    EXPECT_EQ(taking[0].size(), dtype == DType::kBF16 ? 7u : 5u);
    EXPECT_EQ(made[0].size(), dtype == DType::kBF16 ? 0u : 2u);  // f32: dw1's and dw2's GEMMs
    EXPECT_EQ(taking[0], taking[1]);
    for (size_t i = 0; i < made[0].size() && i < made[1].size(); ++i) {
      EXPECT_NE(made[0][i], made[1][i]);
    }
  }
}

// A GEMM that takes the batch as K refuses an epilogue that gathers along the batch (its
// bounds check holds the extent): that kernel is specialized (a review's repro, 7159cb4).
TEST(DynamicExtentsTest, AGatherAlongTheBatchKeepsAGemmFromTakingItAsK) {
  const Tensor ix = In({128}, DType::kI32);
  auto record = [&](int64_t b) {
    const Tensor x = In({b, 128}), dy = In({b, 128});
    return RecordOf(matmul(transpose(x * 1.0), dy * 1.0) + index_select(x * 1.0, 0, ix));
  };
  Family family;
  Choose(record(20), family);
  const Recorded r = record(40);
  const std::optional<DynamicChoice> c = Choose(r, family);
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->dynamic.fixed_math.empty());
  const codegen::GeneratedPlan g =
      codegen::PlanAndGenerateWithRows(r.program, Target{9, 0, true}, c->dynamic);
  int gemms = 0;
  for (const codegen::KernelSource& k : g.kernels) {
    if (k.kind != "gemm") continue;
    ++gemms;
    EXPECT_FALSE(k.takes_rows) << k.source;
  }
  EXPECT_EQ(gemms, 1);
}

// A small weight's gradient over a large batch (256 x 512, a K of thousands): a kernel for
// each batch size cuts its few tiles' K into slices, which one that takes K cannot; so there
// the GEMM is specialized, and over short batches it takes the batch as K.
TEST(DynamicExtentsTest, LongBatchesOfFewTilesKeepTheirKSlices) {
  auto record = [](int64_t b) {
    return RecordOf(matmul(transpose(In({b, 256}) * 1.0), In({b, 512}) * 1.0));
  };
  for (int64_t b : {40, 5000}) {
    Family family;
    Choose(record(20), family);
    const Recorded r = record(b);
    const std::optional<DynamicChoice> c = Choose(r, family);
    ASSERT_TRUE(c.has_value());
    const codegen::GeneratedPlan g =
        codegen::PlanAndGenerateWithRows(r.program, Target{9, 0, true}, c->dynamic);
    for (const codegen::KernelSource& k : g.kernels) {
      if (k.kind != "gemm") continue;
      EXPECT_EQ(k.takes_rows, b == 40) << b << ": " << k.schedule;
      if (b == 5000) {
        EXPECT_NE(k.schedule.find("slices"), std::string::npos) << k.schedule;
      }
    }
  }
}

// Reductions over the batch along columns (sum(x, {0}), a mean over the batch and the next
// axis) take the batch as their length: one source a bucket, in one split or several (the
// splits chosen for the bucket's largest batch), compiled for sm_90a and sm_80.
TEST(DynamicExtentsTest, ColumnReductionsOverTheBatchTakeRows) {
  if (!runtime::NvrtcVersion().ok()) GTEST_SKIP() << "NVRTC is not installed";
  const Tensor bias = In({64}, DType::kF32);
  auto sources = [&](int64_t b) {
    auto record = [&](int64_t rows) {
      const Tensor x = In({rows, 64}, DType::kBF16), x3 = In({rows, 3, 64}, DType::kF32);
      return RecordOf(concat({bias - 0.1 * sum(x, {0}), mean(x3, {0, 1}) * 2.0}, 0));
    };
    Family family;
    Choose(record(2), family);
    const Recorded r = record(b);
    const std::optional<DynamicChoice> choice = Choose(r, family);
    EXPECT_TRUE(choice.has_value());
    std::vector<std::string> out;
    for (const FusedKernel& k : PlanFusion(r.program, DefaultFusionOptions()).kernels) {
      if (k.kind != KernelKind::kReduction) continue;
      std::optional<codegen::KernelSource> ks =
          codegen::GenerateWithRows(k, Target{9, 0, true}, choice->dynamic);
      EXPECT_TRUE(ks.has_value());
      if (!ks.has_value()) continue;
      EXPECT_TRUE(ks->takes_rows);
      EXPECT_NE(ks->schedule.find("columns"), std::string::npos) << ks->schedule;
      for (const Target& t : {Target{9, 0, true}, Target{8, 0, false}}) {
        absl::StatusOr<runtime::CompileOutput> compiled = Compile(*ks, t);
        EXPECT_TRUE(compiled.ok()) << compiled.status().message() << "\n" << ks->source;
      }
      out.push_back(ks->schedule + ks->source);
    }
    return out;
  };
  const std::vector<std::string> small = sources(40);
  EXPECT_EQ(small.size(), 2u);
  EXPECT_EQ(small, sources(63));
  const std::vector<std::string> large = sources(5000);  // 4096..8191: in splits
  ASSERT_FALSE(large.empty());
  EXPECT_NE(large[0].find("splits combined after"), std::string::npos) << large[0];
  EXPECT_EQ(large, sources(8000));
}

// A gather along a batch axis checks its indices against the batch: its kernel is
// specialized. A gather realized earlier (a leaf now, its inputs dropped) is only an input
// (fuzz seed 8018216: its first input was read).
TEST(DynamicExtentsTest, GathersAlongTheBatchSpecializeAndRealizedOnesAreLeaves) {
  Family family, realized_family;
  const Tensor index = from_vector(std::vector<int32_t>{1}, {1}, DType::kI32, Device::kCPU);
  for (int64_t b : {3, 6}) {
    const Tensor x = from_vector(std::vector<float>(b, 1.0f), {b}, DType::kF32, Device::kCPU);
    const Tensor gathered = gather(x * 2.0, 0, index);
    const std::optional<DynamicChoice> g = Choose(RecordOf(gathered + 1.0), family);
    EXPECT_EQ(g.has_value(), b == 6) << b;
    if (g.has_value()) {
      EXPECT_TRUE(g->dynamic.fixed_math.contains(&gathered.node()));
    }
    const Tensor picked = gather(x * 2.0, 0, index);
    realize({picked});
    const Recorded r = RecordOf(x / sin(picked));  // the realized gather is in the program
    const std::optional<DynamicChoice> c = Choose(r, realized_family);
    EXPECT_EQ(c.has_value(), b == 6) << b;
  }
}

// One step of a generation loop over a sequence of t tokens: causal attention of x with
// itself ([t, t] scores from a tril mask), then the last row (`slice(.., t - 1, t)`).
Recorded SequenceStep(int64_t t) {
  const Tensor x = In({t, 32}, DType::kF32);
  const Tensor mask = gt(triu(ones({t, t}, DType::kF32, Device::kCPU), 1), 0.0);
  const Tensor scores = masked_fill(matmul(x, transpose(x)) * 0.125, mask, -1e30);
  return RecordOf(slice(matmul(softmax(scores, 1), x), 0, t - 1, t));
}

std::optional<SymbolChoice> Symbols(const Recorded& r, Family& family) {
  return ChooseSymbols(ExtentsAndBounds(r.ordered), family);
}

// t is one symbol at every dim it reaches, and the last-row slice is t - 1 and t. Dynamic
// rows take it only at leading extents. (The backend's families still key slice bounds, so
// it sees each t as a family of its own until kernels take symbols.)
TEST(DynamicExtentsTest, SequenceStepHasOneSymbolAtEveryDim) {
  const Recorded t9 = SequenceStep(9), t10 = SequenceStep(10);
  Family family;
  EXPECT_FALSE(Symbols(t9, family).has_value());
  const std::optional<SymbolChoice> c = Symbols(t10, family);
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(c->symbols.size(), 1u);
  EXPECT_EQ(c->symbols[0].value, 10);
  EXPECT_EQ(c->symbols[0].bucket, 3);
  EXPECT_EQ(c->symbols[0].capacity, 16);
  const ProgramExtents e = ExtentsAndBounds(t10.ordered);
  std::set<int> dims;
  std::vector<int64_t> bounds;
  for (size_t i = 0; i < e.values.size(); ++i) {
    if (c->symbol_of[i] < 0) continue;
    EXPECT_EQ(c->symbol_of[i], 0);
    if (e.positions[i].dim >= 0) {
      dims.insert(e.positions[i].dim);
      EXPECT_EQ(e.values[i], 10);
    } else {
      bounds.push_back(c->offset[i]);
    }
  }
  EXPECT_EQ(dims, (std::set<int>{0, 1}));
  EXPECT_EQ(bounds, (std::vector<int64_t>{-1, 0}));  // start t - 1, end t
  Family rows_family;
  EXPECT_FALSE(Choose(SequenceStep(9), rows_family).has_value());
  EXPECT_FALSE(Choose(SequenceStep(10), rows_family).has_value());  // t in slice bounds
}

// A bound that keeps no distance to any varying extent moves on its own: no symbol for it.
TEST(DynamicExtentsTest, BoundsMovingOnTheirOwnAreSpecialized) {
  auto program = [](int64_t rows, int64_t start) {
    return RecordOf(slice(In({rows, 16}, DType::kF32), 1, start, start + 4) * 2.0);
  };
  Family family;
  EXPECT_FALSE(Symbols(program(8, 0), family).has_value());
  EXPECT_FALSE(Symbols(program(8, 3), family).has_value());
  Family with_rows;
  EXPECT_FALSE(Symbols(program(8, 2), with_rows).has_value());
  const std::optional<SymbolChoice> rows = Symbols(program(12, 2), with_rows);
  ASSERT_TRUE(rows.has_value());  // the bounds stay put: the rows are the one symbol
  EXPECT_EQ(rows->symbols.size(), 1u);
}

// A static slice bound equal to the batch is no ambiguity (bounds are no extents).
TEST(DynamicExtentsTest, StaticBoundsEqualToTheBatchKeepItDynamic) {
  auto program = [](int64_t b) {
    return RecordOf(slice(In({b, 16}, DType::kF32), 1, 4, 12) * 2.0);
  };
  Family family;
  EXPECT_FALSE(Choose(program(3), family).has_value());
  EXPECT_TRUE(Choose(program(4), family).has_value());
  EXPECT_TRUE(Choose(program(12), family).has_value());
}

// Plan keys: equal for every value of a bucket, different across buckets, and different
// where two symbols coincide in one program.
TEST(DynamicExtentsTest, KeysFollowBucketsAndSymbolGroupings) {
  auto key_of = [](const Recorded& r, Family& family) {
    const ProgramExtents e = ExtentsAndBounds(r.ordered);
    const std::optional<SymbolChoice> c = ChooseSymbols(e, family);
    return c.has_value() ? DynamicKey({}, e, *c) : std::vector<int64_t>{};
  };
  Family family;
  key_of(SequenceStep(8), family);
  const std::vector<int64_t> k9 = key_of(SequenceStep(9), family);
  EXPECT_FALSE(k9.empty());
  EXPECT_EQ(key_of(SequenceStep(12), family), k9);
  EXPECT_EQ(key_of(SequenceStep(15), family), k9);
  EXPECT_NE(key_of(SequenceStep(16), family), k9);
  auto pair = [](int64_t a, int64_t b) {
    return RecordOf(sum(In({a, 16}, DType::kF32), {0}) + sum(In({b, 16}, DType::kF32), {0}));
  };
  Family pairs;
  key_of(pair(4, 5), pairs);
  const std::optional<SymbolChoice> two = Symbols(pair(6, 7), pairs);
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->symbols.size(), 2u);
  EXPECT_NE(two->symbols[0].capacity, two->symbols[1].capacity);  // 8 and 16, not both 8
  const std::vector<int64_t> apart = key_of(pair(6, 5), pairs);
  const std::vector<int64_t> together = key_of(pair(6, 6), pairs);
  EXPECT_FALSE(together.empty());
  EXPECT_NE(apart, together);
}

// A capacity equal to a static extent moves on: t = 33 (bucket 32..63) beside a static 64
// is laid out at 72.
TEST(DynamicExtentsTest, CapacitiesAvoidStaticExtents) {
  auto program = [](int64_t t) {
    return RecordOf(matmul(In({t, 64}, DType::kF32), In({64, 64}, DType::kF32)));
  };
  Family family;
  Symbols(program(20), family);
  const std::optional<SymbolChoice> c = Symbols(program(33), family);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->symbols.at(0).bucket, 5);
  EXPECT_EQ(c->symbols.at(0).capacity, 72);
}

}  // namespace
}  // namespace tessel::backend
