// Every kernel the corpus generates compiles with NVRTC for sm_80 and sm_90a (no GPU needed),
// without spills; generation is deterministic; goldens pin a few kernels' text.
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "backend/compile.h"
#include "codegen/gemm_common.h"
#include "codegen/generate.h"
#include "codegen/prelude.h"
#include "core/realize.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/codegen/corpus.h"
#include "tools/ptx_loops.h"

namespace tessel {
namespace {

// How often `needle` occurs in `text`.
int Occurrences(absl::string_view text, absl::string_view needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != absl::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// Generated for each target as the CUDA backend would (GEMMs differ), compiled for it.
// Spills and the ptxas warnings that mean a slow kernel fail the build: C7508 (setmaxnreg
// ignored), C7511 and C7515 (wgmma serialized); so does a loop no path leaves in the PTX, and
// on sm_90a an entry without the wait for the kernel before (every kernel may overlap it
// there: codegen's GridDependency) or a load through the non-coherent path, which ptxas may
// move above that wait (kernel_common's ParameterList keeps __restrict__ off every pointer an
// entry may only read).
TEST(CodegenTest, EveryCorpusKernelCompilesForSm80AndSm90a) {
  if (!runtime::NvrtcVersion().ok()) GTEST_SKIP() << "NVRTC is not installed";
  int compiled = 0, tensor_core = 0, tf32 = 0, plain_tf32 = 0, attention = 0, swapped_128 = 0;
  for (const testing::CorpusCase& c : testing::Corpus()) {
    std::vector<const Node*> roots;
    for (const Tensor& t : c.outputs) roots.push_back(&t.node());
    for (const Target& target : {Target{8, 0, false}, Target{9, 0, true}}) {
      for (const codegen::KernelSource& k : codegen::PlanAndGenerate(roots, target).kernels) {
        SCOPED_TRACE(c.name + " " + k.name + " " + target.Name());
        absl::StatusOr<runtime::CompileOutput> out = backend::Compile(k, target);
        ASSERT_TRUE(out.ok()) << out.status().message() << "\n" << k.source;
        EXPECT_EQ(out->log.find("spill"), std::string::npos) << out->log;
        for (const char* warning : {"C7508", "C7511", "C7515"}) {
          EXPECT_EQ(out->log.find(warning), std::string::npos) << out->log;
        }
        EXPECT_FALSE(out->cubin.empty());
        EXPECT_THAT(tools::FunctionsWithEndlessLoops(out->ptx), ::testing::IsEmpty());
        if (target.major >= 9) {  // every entry waits for the kernel before it
          EXPECT_GE(Occurrences(out->ptx, "griddepcontrol.wait;"),
                    Occurrences(out->ptx, ".entry "));
        }
        if (target.major >= 9 && !absl::StrContains(out->ptx, ".global .align")) {
          // (The math library's tables, .global constants, are read so; they never change.)
          EXPECT_FALSE(absl::StrContains(out->ptx, "ld.global.nc")) << k.source;
        }
        ++compiled;
        tensor_core += absl::StrContains(
                           k.source, target.major == 9 ? "tessel_gemm_sm90<" : "tessel_gemm_sm80<")
                           ? 1
                           : 0;
        tf32 += absl::StrContains(k.source, "TF32 = true") ? 1 : 0;
        attention += absl::StrContains(k.source, target.major == 9 ? "tessel_attention_sm90<"
                                                                   : "tessel_attention_sm80<")
                         ? 1
                         : 0;
        swapped_128 +=
            absl::StrContains(k.source, "BM = 128,") && absl::StrContains(k.source, "SWAP = true,")
                ? 1
                : 0;
        plain_tf32 += absl::StrContains(k.source, "= tessel_tf32(v") &&
                              !absl::StrContains(k.source, "TF32 = true")
                          ? 1
                          : 0;
      }
    }
  }
  EXPECT_GT(compiled, 40);
  EXPECT_GE(tensor_core, 16);  // the tensor-core GEMMs on both targets
  // TF32 tensor cores, kTF32 (B read into registers on sm_90a's wide tiles) and three TF32
  // products (kHigh): mma.sync on sm_80, wgmma on sm_90a.
  EXPECT_EQ(tf32, 18);
  EXPECT_EQ(plain_tf32, 2);  // the plain kernel, reading TF32, on both targets
  // The corpus's attention chains, one kernel each target: mma.sync on sm_80, wgmma on sm_90a.
  EXPECT_EQ(attention, 28);
  // 65-128 rows over many columns on one swapped tile row of 128: plain and dual (sm_90a).
  EXPECT_EQ(swapped_128, 2);
}

// The acceptance example: gelu(matmul(x, w) + b) + r is one GEMM kernel whose
// epilogue holds the bias, the GELU and the residual.
TEST(CodegenTest, ExplainShowsOneGemmWithTheWholeEpilogue) {
  auto in = [](Shape s) { return Tensor(MakeInputNode(DType::kBF16, Device::kCPU, s, nullptr)); };
  Tensor x = in({512, 256}), w = in({256, 1024}), b = in({1024}), r = in({512, 1024});
  const Tensor y = gelu(matmul(x, w) + b) + r;
  const std::string text = explain({y});
  EXPECT_TRUE(absl::StartsWith(text, "1 kernel ")) << text;
  EXPECT_TRUE(absl::StrContains(text, "(gemm)")) << text;
  EXPECT_TRUE(absl::StrContains(text, " matmul add cast ")) << text;
  EXPECT_TRUE(absl::StrContains(text, " sigmoid mul cast add\n")) << text;
  EXPECT_TRUE(absl::StrContains(text,
                                "inputs:  %0 bf16[512,256], %1 bf16[256,1024], "
                                "%3 bf16[1024], %16 bf16[512,1024]\n"))
      << text;
  const std::vector<KernelInfo> kernels = inspect({y});
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_TRUE(absl::StrContains(kernels[0].source, "tessel_gemm_sm90<gemm_config>"))
      << kernels[0].source;
}

// argmax and argmin compose max, a comparison and a min: one fused reduction kernel, also with
// a pointwise prologue, and next to a sibling reduction of the same input.
TEST(CodegenTest, ArgmaxIsOneFusedReduction) {
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kI32}) {
    for (int axis : {0, 1}) {
      const Tensor x =
          from_vector(std::vector<float>(64 * 1000, 1.0f), {64, 1000}, dtype, Device::kCPU);
      EXPECT_EQ(inspect({argmax(x, axis)}).size(), 1u) << DTypeName(dtype) << " axis " << axis;
      EXPECT_EQ(inspect({argmin(x * 2.0 + 1.0, axis), sum(x, {axis})}).size(), 1u)
          << explain({argmin(x * 2.0 + 1.0, axis), sum(x, {axis})});
    }
  }
}

// Positions are widened from 32 bits below 2^31 (i64 ones from unsigned, so that their high
// word is known zero) and converted from 64 bits beyond: arange never wraps.
TEST(CodegenTest, ArangePositionsNeverWrap) {
  const Tensor small = arange(1000, DType::kI64, Device::kCPU) + 1;
  EXPECT_NE(inspect({small}).at(0).source.find("(long long)(unsigned)"), std::string::npos);
  for (DType dtype : {DType::kI64, DType::kF64}) {
    const Tensor big = arange(int64_t{3} << 30, dtype, Device::kCPU) * 2;
    const std::string source = inspect({big}).at(0).source.substr(codegen::Prelude().size());
    EXPECT_EQ(source.find("(unsigned)"), std::string::npos) << source;
    EXPECT_EQ(source.find("(int)"), std::string::npos) << source;
  }
}

// A streamed row reads what is the same along it once, before its loops (the target class of
// a one-hot max), and compares its positions to it in 32 bits a lane. A one-hot sum (cross-
// entropy's pick) reads its term at the target once, after the loops, and compares nothing.
TEST(CodegenTest, StreamedRowsReadTheirTargetOnce) {
  // Enough rows to stream (fewer are held on chip by clusters), realized: buffers to read.
  const Tensor x = zeros({512, 32000}, DType::kBF16, Device::kCPU) + 1.0;
  const Tensor targets = zeros({512, 1}, DType::kI64, Device::kCPU) + 3;
  realize({x, targets});
  const Tensor classes = arange(32000, DType::kI64, Device::kCPU);
  const Tensor onehot = where(eq(classes, targets), x, 0.0);
  for (const bool pick_by_sum : {false, true}) {
    const Tensor picked = pick_by_sum ? sum(onehot, {1}, true) : max(onehot, {1}, true);
    const Tensor loss = logsumexp(x, {1}, true) - picked;
    const std::vector<KernelInfo> kernels = inspect({loss});
    ASSERT_EQ(kernels.size(), 1u) << explain({loss});
    const std::string source = kernels[0].source.substr(codegen::Prelude().size());
    const std::string load = "const long long in1_0 = in1[row];";
    const size_t at = source.find(load), loop = source.find("for (; c");
    ASSERT_NE(at, std::string::npos) << source;
    EXPECT_EQ(at < loop, !pick_by_sum) << source;
    EXPECT_EQ(source.find(load, at + 1), std::string::npos) << source;
    const bool compares = source.find(">> 32 == 0) & ((unsigned)arange") != std::string::npos;
    EXPECT_EQ(compares, !pick_by_sum) << source;
    EXPECT_EQ(absl::StrContains(explain({loss}), "one-hot sum read at its target"), pick_by_sum);
  }
}

// Small k over long contiguous lines tries a sampled threshold first; short lines, large k
// and strided lines keep the parts' path alone.
TEST(CodegenTest, TopKOfLongLinesTriesAThreshold) {
  auto threshold = [](const Tensor& t) {
    for (const KernelInfo& k : inspect({t})) {
      if (k.source.find("tessel/sort_threshold.cuh") != std::string::npos) return true;
    }
    return false;
  };
  const Tensor x = zeros({4, 131072}, DType::kF32, Device::kCPU);
  EXPECT_TRUE(threshold(topk(x, 50).second));
  EXPECT_TRUE(threshold(topk(cast(x, DType::kF64), 1, -1, false).second));
  EXPECT_FALSE(threshold(topk(x, 65).second));
  EXPECT_FALSE(threshold(topk(slice(x, 1, 0, 20000), 50).second));
  EXPECT_FALSE(threshold(topk(transpose(x), 50, 0).second));
}

// Reductions over leading or middle axes read along the kept innermost axis, a warp per 64
// columns (a pair a lane) where the innermost extent is even and the inputs at most 4 bytes
// wide, else 32; long columns split over blocks (then a second launch combines the splits).
TEST(CodegenTest, ColumnReductionsReadAlongTheKeptAxis) {
  auto launches = [](const Tensor& t) {
    const std::vector<codegen::KernelSource> ks =
        codegen::PlanAndGenerate({&t.node()}, Target{9, 0, true}).kernels;
    EXPECT_EQ(ks.size(), 1u);
    return ks.at(0).launches;
  };
  auto in = [](Shape s, DType t) { return Tensor(MakeInputNode(t, Device::kCPU, s, nullptr)); };
  const auto tall = launches(sum(in({16384, 8192}, DType::kF32), {0}));
  ASSERT_EQ(tall.size(), 2u);
  EXPECT_EQ(tall[0].grid[0], 8192 / 64);
  EXPECT_GT(tall[0].grid[1], 1);  // splits
  EXPECT_EQ(tall[0].block, 256);
  const auto middle = launches(mean(in({64, 512, 4096}, DType::kBF16), {1}));
  ASSERT_EQ(middle.size(), 1u);
  EXPECT_EQ(middle[0].grid[0], 64 * 4096 / 64);
  EXPECT_EQ(launches(sum(in({1000, 4095}, DType::kBF16), {0}))[0].grid[0], (4095 + 31) / 32);
  EXPECT_EQ(launches(sum(in({1000, 4096}, DType::kF64), {0}))[0].grid[0], 4096 / 32);
  // Trailing axes stay a block per row; a kept innermost axis under a warp's width too.
  const auto rows = launches(sum(in({16384, 8192}, DType::kF32), {1}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].grid[0], 16384);
  EXPECT_EQ(launches(sum(in({4096, 8}, DType::kF32), {0}))[0].grid[0], 8);
  // explain() names the schedule.
  const Tensor x = zeros({16384, 8192}, DType::kF32, Device::kCPU);
  EXPECT_NE(explain({sum(x, {0})}).find("schedule: columns"), std::string::npos);
  EXPECT_NE(explain({sum(x, {1})}).find("schedule: a block per row"), std::string::npos);
}

// An input without data (what planning and generation need).
Tensor Placeholder(Shape shape, DType dtype = DType::kF32) {
  return Tensor(MakeInputNode(dtype, Device::kCPU, shape, nullptr));
}

// The one kernel sm_90a runs for `t`.
codegen::KernelSource OneKernel(const Tensor& t) {
  std::vector<codegen::KernelSource> ks =
      codegen::PlanAndGenerate({&t.node()}, Target{9, 0, true}).kernels;
  EXPECT_EQ(ks.size(), 1u);
  return ks.at(0);
}

// Normalizations over a non-trailing axis short enough to hold on chip: a warp per 32 columns,
// threads sharing each column; longer ones are column reductions and an epilogue.
TEST(CodegenTest, ColumnNormalizationsHoldColumnsOnChip) {
  const codegen::KernelSource middle = OneKernel(softmax(Placeholder({64, 500, 256}), 1));
  EXPECT_EQ(middle.schedule.rfind("columns held on chip", 0), 0u) << middle.schedule;
  EXPECT_EQ(middle.launches.at(0).grid[0], 64 * 256 / 32);
  EXPECT_EQ(middle.launches.at(0).block, 32 * 32);
  const codegen::KernelSource leading = OneKernel(softmax(Placeholder({100, 45}), 0));
  EXPECT_EQ(leading.launches.at(0).grid[0], 2);     // 45 columns: two warps' worth
  EXPECT_EQ(leading.launches.at(0).block, 32 * 7);  // 100 = 7 threads x 15 lanes
  // A warp's 32 parts a column are read back a part a lane and combined by shuffles; fewer
  // parts in turn by each thread.
  EXPECT_TRUE(absl::StrContains(middle.source, "[threadIdx.x % 32 * 33 + threadIdx.x / 32]"));
  EXPECT_FALSE(absl::StrContains(middle.source, "for (int p = 1;"));
  EXPECT_TRUE(absl::StrContains(leading.source, "for (int p = 1; p < 7; ++p)"));
  // Many columns of 241-256 f32: 64 a block of 1024 threads (256 bytes of each row); of
  // 16-bit values, 64 a block of 512 threads with the whole tile in shared memory (16-byte
  // copies: innermost extents a multiple of 8), or where columns of up to 256 are many enough
  // for two such blocks an SM, 128 a block of 1024 threads; too few columns for two blocks an
  // SM, or columns that take fewer threads, keep 32.
  struct Case {
    Shape shape;
    DType dtype;
    int width, threads;
    int64_t shared_bytes;
  };
  for (const Case& c :
       {Case{{250, 17000}, DType::kF32, 64, 1024, 0},
        Case{{250, 17000}, DType::kBF16, 64, 512, 32 * 512 * 2},
        Case{{241, 17000}, DType::kF16, 64, 512, 32 * 512 * 2},
        Case{{256, 34000}, DType::kBF16, 128, 1024, 32 * 1024 * 2},
        Case{{257, 34000}, DType::kBF16, 64, 512, 48 * 512 * 2},
        Case{{250, 17004}, DType::kBF16, 32, 512, 0}, Case{{250, 8000}, DType::kBF16, 32, 512, 0},
        Case{{250, 8000}, DType::kF32, 32, 512, 0},
        Case{{200, 17000}, DType::kF32, 32, 32 * 13, 0}}) {
    const codegen::KernelSource k = OneKernel(softmax(Placeholder(c.shape, c.dtype), 0));
    SCOPED_TRACE(k.schedule);
    EXPECT_EQ(k.launches.at(0).grid[0], (c.shape[1] + c.width - 1) / c.width);
    EXPECT_EQ(k.launches.at(0).block, c.threads);
    EXPECT_EQ(k.launches.at(0).shared_bytes, c.shared_bytes);
  }
  // A middle axis of 512 bf16: a 64 KB tile, three blocks an SM; the schedule says so.
  const codegen::KernelSource tile =
      OneKernel(softmax(Placeholder({40, 512, 512}, DType::kBF16), 1));
  EXPECT_EQ(tile.launches.at(0).shared_bytes, 64 * 512 * 2);
  EXPECT_TRUE(absl::StrContains(tile.source, "__launch_bounds__(512, 3)"));
  EXPECT_TRUE(absl::StrContains(tile.schedule, "64 in a shared-memory tile")) << tile.schedule;
  // No tile where three blocks' registers would not do (two outputs, 8-byte values), where the
  // input is also read at other positions (a flip), or off sm_90.
  const Tensor many = Placeholder({256, 17000}, DType::kBF16);
  const Tensor two_outputs[] = {softmax(many, 0), log_softmax(many, 0)};
  const Tensor e = exp(cast(many - max(many, {0}, true), DType::kF64));  // the sum in f64
  const Tensor wide = cast(e / sum(e, {0}, true), DType::kBF16);
  for (const Tensor* t : {&two_outputs[0], &wide}) {
    std::vector<const Node*> roots = {&t->node()};
    if (t == &two_outputs[0]) roots.push_back(&two_outputs[1].node());
    for (const codegen::KernelSource& k :
         codegen::PlanAndGenerate(roots, Target{9, 0, true}).kernels) {
      EXPECT_EQ(k.launches.at(0).shared_bytes, 0) << k.schedule;
    }
  }
  EXPECT_EQ(OneKernel(softmax(flip(many, {0}), 0)).launches.at(0).shared_bytes, 0);
  const Tensor plain = softmax(many, 0);
  const auto ampere = codegen::PlanAndGenerate({&plain.node()}, Target{8, 0, false}).kernels;
  ASSERT_EQ(ampere.size(), 1u);
  EXPECT_EQ(ampere[0].launches.at(0).shared_bytes, 0) << ampere[0].schedule;
  // Few short columns keep their registers; with TESSEL_SMALL_TILES=1 (the fuzzer's
  // --small_tiles) they take a tile too: 100 values over 8 parts, 13 lanes a thread, 128
  // columns a block.
  const Tensor small = softmax(Placeholder({100, 48}, DType::kBF16), 0);
  EXPECT_EQ(OneKernel(small).launches.at(0).shared_bytes, 0);
  setenv("TESSEL_SMALL_TILES", "1", 1);
  const codegen::KernelSource small_tile = OneKernel(small);
  unsetenv("TESSEL_SMALL_TILES");
  EXPECT_EQ(small_tile.launches.at(0).shared_bytes, 13 * 1024 * 2) << small_tile.schedule;
  EXPECT_EQ(small_tile.launches.at(0).grid[0], 1);
  // Longer columns: on sm_90, 32 f32 columns (128 bytes) a block of 512 threads, each thread
  // 32 values in registers and 32 staged in shared memory, the columns split over a cluster
  // (1024 values of each a block, up to 16 blocks; 64 bytes and at most 8 where parts are
  // ragged, or with TESSEL_CLUSTERS=8); elsewhere (or longer still) the max and the sum by
  // column reductions, then a pointwise epilogue.
  const Tensor longer = softmax(Placeholder({4096, 64}), 0);
  const std::vector<codegen::KernelSource> hopper =
      codegen::PlanAndGenerate({&longer.node()}, Target{9, 0, true}).kernels;
  ASSERT_EQ(hopper.size(), 1u);
  EXPECT_EQ(hopper[0].launches.at(0).grid[0], 64 / 32 * 4);
  EXPECT_EQ(hopper[0].launches.at(0).block, 512);
  EXPECT_EQ(hopper[0].launches.at(0).shared_bytes, 32 * 512 * 4);
  EXPECT_EQ(hopper[0].launches.at(0).cluster, 4);
  EXPECT_TRUE(absl::StrContains(hopper[0].source, "__cluster_dims__(4, 1, 1)"));
  EXPECT_TRUE(absl::StrContains(hopper[0].schedule, "32 lanes + 32 in shared memory"))
      << hopper[0].schedule;
  // Columns of 16384 in the most blocks, 16; of 1500 (ragged parts: 64 bytes) in one block
  // of 16 columns, 47 values a thread.
  EXPECT_EQ(OneKernel(softmax(Placeholder({16384, 64}), 0)).launches.at(0).cluster, 16);
  const codegen::KernelSource one = OneKernel(softmax(Placeholder({1500, 40}), 0));
  EXPECT_EQ(one.launches.at(0).grid[0], 3);
  EXPECT_EQ(one.launches.at(0).shared_bytes, 32 * 512 * 4);
  EXPECT_FALSE(absl::StrContains(one.source, "__cluster_dims__"));
  // The staged input read elsewhere too (transposed): those reads come from memory.
  const Tensor square = Placeholder({2100, 2100});
  const codegen::KernelSource both = OneKernel(softmax(square + transpose(square), 0));
  EXPECT_GT(both.launches.at(0).shared_bytes, 0) << both.schedule;
  EXPECT_TRUE(absl::StrContains(both.source, "in0[((start + col(k)) * 2100 + row)]"));
  EXPECT_TRUE(absl::StrContains(both.source, "in0[(row * 2100 + (start + col(k)))]"));
  // The block copies the shared lanes as 16-byte runs of columns where they lie side by side
  // (the innermost axis kept, a multiple of 16 bytes) and parts are even; else each thread its
  // own, 16-bit inputs a pair of neighbouring columns a copy (cp.async copies at least 4 bytes)
  // where pairs lie side by side (the innermost axis kept and even) and parts are even. Odd
  // ones, ragged parts, and two inputs read along the columns keep every lane in registers: 32
  // bytes of each row a block of 1024 threads.
  const codegen::KernelSource runs = OneKernel(softmax(Placeholder({16384, 64}, DType::kBF16), 0));
  EXPECT_EQ(runs.launches.at(0).cluster, 16);
  EXPECT_EQ(runs.launches.at(0).grid[0], 16);  // 64 columns a block
  EXPECT_EQ(runs.launches.at(0).shared_bytes, 96 * 512 * 2);
  EXPECT_TRUE(absl::StrContains(runs.source, "tessel_copy_16_async(stage + i * 8, "));
  EXPECT_FALSE(absl::StrContains(runs.source, "tessel_copy_4_async(stage"));
  EXPECT_TRUE(absl::StrContains(hopper[0].source, "tessel_copy_16_async(stage + i * 4, "));
  const codegen::KernelSource pairs = OneKernel(softmax(Placeholder({16384, 66}, DType::kBF16), 0));
  EXPECT_EQ(pairs.launches.at(0).shared_bytes, 96 * 512 * 2);
  EXPECT_TRUE(absl::StrContains(pairs.source, "__syncwarp();  // and its pair's"));
  EXPECT_FALSE(absl::StrContains(pairs.source, "tessel_copy_16_async(stage"));
  EXPECT_TRUE(absl::StrContains(one.source, "tessel_copy_4_async(stage"));  // ragged parts
  for (const Tensor& t : {softmax(Placeholder({4096, 63}, DType::kBF16), 0),
                          softmax(Placeholder({3000, 64}, DType::kBF16), 0),
                          softmax(Placeholder({4096, 64}) + Placeholder({4096, 64}), 0)}) {
    const codegen::KernelSource held = OneKernel(t);
    EXPECT_EQ(held.launches.at(0).block, 1024) << held.schedule;
    EXPECT_EQ(held.launches.at(0).shared_bytes, 0) << held.schedule;
  }
  // An 8-byte value in the kernel but f32 values reduced: the planner's rule, so the columns
  // it stages are held, never read one element per stride.
  const Tensor cast_out = cast(softmax(Placeholder({12000, 40}), 0), DType::kF64);
  const auto mixed = codegen::PlanAndGenerate({&cast_out.node()}, Target{9, 0, true}).kernels;
  ASSERT_EQ(mixed.size(), 1u);
  EXPECT_EQ(mixed[0].schedule.rfind("columns held on chip", 0), 0u) << mixed[0].schedule;
  const Tensor longest = softmax(Placeholder({20000, 64}), 0);
  EXPECT_EQ(codegen::PlanAndGenerate({&longest.node()}, Target{9, 0, true}).kernels.size(), 3u);
  const std::vector<codegen::KernelSource> ks =
      codegen::PlanAndGenerate({&longer.node()}, Target{8, 0, false}).kernels;
  ASSERT_EQ(ks.size(), 3u);
  EXPECT_EQ(ks[0].schedule.rfind("columns: a warp per 64", 0), 0u) << ks[0].schedule;
  EXPECT_EQ(ks[1].schedule.rfind("columns: a warp per 64", 0), 0u) << ks[1].schedule;
  EXPECT_EQ(ks[2].kind, "pointwise");
  // With a varying batch as the kernels' argument the column reductions fall back to a block
  // per row, which takes it: no compile per batch size.
  const Tensor batch = softmax(Placeholder({777, 1000, 64}), 1);
  const FusionPlan plan = PlanFusion(CollectProgram({&batch.node()}));
  codegen::DynamicRows rows;
  rows.max = 1 << 12;
  for (const FusedKernel& k : plan.kernels) {
    for (const auto* list : {&k.nodes, &k.inputs, &k.outputs}) {
      for (const Node* n : *list) {
        if (n->shape().rank() == 3 && n->shape()[0] == 777) rows.nodes.insert(n);
      }
    }
  }
  ASSERT_EQ(plan.kernels.size(), 3u);
  std::vector<codegen::SpecializedKernel> specialized;
  codegen::GeneratePlanWithRows(plan, Target{9, 0, true}, rows, &specialized);
  EXPECT_TRUE(specialized.empty());
}

// Rows longer than a block holds: on sm_90 a cluster of blocks shares each row (8 for 131072
// 4-byte values; 8-byte values take twice the blocks), one kernel; on sm_80 they stream.
TEST(CodegenTest, ClustersShareLongRows) {
  auto in = [](Shape s, DType t) { return Tensor(MakeInputNode(t, Device::kCPU, s, nullptr)); };
  auto kernels = [](const Tensor& t, const Target& target) {
    return codegen::PlanAndGenerate({&t.node()}, target).kernels;
  };
  const Tensor long_rows = softmax(in({3, 131072}, DType::kBF16), 1);
  const auto hopper = kernels(long_rows, Target{9, 0, true});
  ASSERT_EQ(hopper.size(), 1u);
  EXPECT_EQ(hopper[0].launches.at(0).grid[0], 3 * 8);
  EXPECT_EQ(hopper[0].schedule.rfind("a cluster of 8 blocks per row", 0), 0u) << hopper[0].schedule;
  EXPECT_TRUE(absl::StrContains(hopper[0].source, "__cluster_dims__(8, 1, 1)"));
  EXPECT_EQ(kernels(long_rows, Target{8, 0, false}).size(), 2u);
  const auto wide = kernels(softmax(in({2, 40000}, DType::kF64), 1), Target{9, 0, true});
  ASSERT_EQ(wide.size(), 1u);
  EXPECT_EQ(wide[0].launches.at(0).grid[0], 2 * 5);  // 8192 8-byte values a block
  // Rows one block holds get no cluster where clusters do not exist, whatever their width
  // (argmax's positions are i64), nor with TESSEL_CLUSTERS=0.
  for (const Tensor& t :
       {softmax(in({2, 10000}, DType::kF64), 1), argmax(in({2, 10000}, DType::kF32), 1)}) {
    for (const codegen::KernelSource& k : kernels(t, Target{8, 0, false})) {
      EXPECT_FALSE(absl::StrContains(k.source, "__cluster_dims__")) << k.name;
    }
    EXPECT_TRUE(
        absl::StrContains(kernels(t, Target{9, 0, true}).at(0).source, "__cluster_dims__(2"));
  }
  setenv("TESSEL_CLUSTERS", "0", 1);
  for (const codegen::KernelSource& k : kernels(long_rows, Target{9, 0, true})) {
    EXPECT_FALSE(absl::StrContains(k.source, "__cluster_dims__")) << k.name;
  }
  unsetenv("TESSEL_CLUSTERS");
}

// A pointwise kernel whose input is read transposed is tiled 32 x 32 (64 along axes that long
// for 2-byte outputs): one block a tile; with
// dynamic rows along either tiled axis or another, its grid follows the rows.
TEST(CodegenTest, TransposesAreTiled) {
  const codegen::KernelSource t = OneKernel(transpose(Placeholder({1000, 333})) + 1.0);
  EXPECT_EQ(t.launches.at(0).grid[0], 32 * 11);  // ceil(1000 / 32) x ceil(333 / 32)
  EXPECT_EQ(t.schedule.rfind("tiled 32 x 32", 0), 0u) << t.schedule;
  const codegen::KernelSource p = OneKernel(permute(Placeholder({5, 64, 96}), {2, 0, 1}) * 2.0);
  EXPECT_EQ(p.launches.at(0).grid[0], 5 * 3 * 2);  // the other axis x 96 / 32 x 64 / 32
  // 2-byte outputs: tiles of 64 x 64 where both axes are that long.
  const codegen::KernelSource half = OneKernel(transpose(Placeholder({1000, 333}, DType::kBF16)));
  EXPECT_EQ(half.launches.at(0).grid[0], 16 * 6);  // ceil(1000 / 64) x ceil(333 / 64)
  EXPECT_EQ(half.schedule.rfind("tiled 64 x 64", 0), 0u) << half.schedule;
  // and 64 along either axis that long alone.
  const codegen::KernelSource narrow = OneKernel(transpose(Placeholder({1000, 40}, DType::kBF16)));
  EXPECT_EQ(narrow.schedule.rfind("tiled 32 x 64", 0), 0u) << narrow.schedule;
  EXPECT_EQ(narrow.launches.at(0).grid[0], 2 * 16);  // ceil(40 / 32) x ceil(1000 / 64)
  // 64 input rows only where they lie within 2 MB: here each is 2 MB from the next.
  const codegen::KernelSource far =
      OneKernel(permute(Placeholder({64, 256, 32, 128}, DType::kBF16), {3, 2, 1, 0}) * 2.0);
  EXPECT_EQ(far.schedule.rfind("tiled 64 x 32", 0), 0u) << far.schedule;
  EXPECT_EQ(OneKernel(transpose(Placeholder({40, 33}, DType::kBF16)) * 2.0)
                .schedule.rfind("tiled 32 x 32", 0),
            0u);
  // Contiguous reads keep the vectorized schedule.
  EXPECT_EQ(OneKernel(Placeholder({1000, 333}) + 1.0).schedule, "");
  const Tensor x =
      from_vector(std::vector<float>(4096 * 64), {4096, 64}, DType::kF32, Device::kCPU);
  EXPECT_NE(explain({transpose(x) * 2.0}).find("schedule: tiled"), std::string::npos);

  // Dynamic rows: the leading axis is `rows` in the source, not its extent.
  auto with_rows = [](const Tensor& t) {
    const FusionPlan plan = PlanFusion(CollectProgram({&t.node()}));
    codegen::DynamicRows rows;
    for (const auto* list : {&plan.kernels.at(0).nodes, &plan.kernels.at(0).inputs}) {
      for (const Node* n : *list) {
        if (n->shape().rank() > 0 && n->shape()[0] == 777) rows.nodes.insert(n);
      }
    }
    rows.max = 1 << 20;
    return codegen::GenerateWithRows(plan.kernels.at(0), Target{9, 0, true}, rows);
  };
  const auto batch = with_rows(permute(Placeholder({777, 96, 64}), {0, 2, 1}) + 1.0);
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->launches.at(0).rows_grid.mul, 6);              // 64 / 32 x 96 / 32 tiles a row
  EXPECT_NE(batch->source.find("i_0 = b_;"), std::string::npos);  // the outermost: no extent
  // 2-byte tiles of 64 along one axis: 96 / 64 x 40 / 32 a row.
  const auto oblong = with_rows(permute(Placeholder({777, 40, 96}, DType::kBF16), {0, 2, 1}));
  ASSERT_TRUE(oblong.has_value());
  EXPECT_EQ(oblong->launches.at(0).rows_grid.mul, 4);
}

// Many long rows held in shared memory (row_held.cc): the launch reserves the row's bytes, a
// block a row, and with a changing batch the grid follows the rows argument.
TEST(CodegenTest, HeldRowsReserveTheirRowAndTakeTheBatch) {
  const Tensor x = Placeholder({777, 32000}, DType::kBF16);
  const Tensor y = softmax(x, 1);
  const FusionPlan plan =
      PlanFusion(CollectProgram({&y.node()}), DefaultFusionOptions(Target{9, 0, true}));
  ASSERT_EQ(plan.kernels.size(), 1u);
  const codegen::KernelSource fixed = codegen::GenerateKernel(plan.kernels[0], Target{9, 0, true});
  EXPECT_EQ(fixed.schedule,
            "a block per row (256 threads), the row held in 64000 bytes of shared "
            "memory");
  ASSERT_EQ(fixed.launches.size(), 1u);
  EXPECT_EQ(fixed.launches[0].shared_bytes, 64000);
  EXPECT_EQ(fixed.launches[0].grid[0], 777);
  codegen::DynamicRows rows;
  for (const Node* n : plan.kernels[0].nodes) rows.nodes.insert(n);
  for (const Node* n : plan.kernels[0].inputs) rows.nodes.insert(n);
  rows.max = 1024;
  const auto batch = codegen::GenerateWithRows(plan.kernels[0], Target{9, 0, true}, rows);
  ASSERT_TRUE(batch.has_value());
  EXPECT_TRUE(batch->takes_rows);
  EXPECT_EQ(batch->launches.at(0).rows_grid.mul, 1);
  EXPECT_NE(batch->source.find("// rows x 1 rows of 32000"), std::string::npos) << batch->source;
  EXPECT_EQ(batch->source.find("777 rows"), std::string::npos) << batch->source;
  // Of two inputs along the row, the one the reductions read is held; the other, read once by
  // the stores, is held only within kStoresOnlyBytes (96 KB), so it is read from memory.
  const Tensor scale = Placeholder({777, 32000}, DType::kBF16);
  const Tensor logits = Placeholder({777, 32000}, DType::kBF16);
  const Tensor doubled = scale * 2.0;  // recorded first: the kernel reads scale first
  const Tensor scaled = doubled * softmax(logits, 1);
  const std::vector<codegen::KernelSource> both =
      codegen::PlanAndGenerate({&scaled.node()}, Target{9, 0, true}).kernels;
  ASSERT_EQ(both.size(), 1u);
  ASSERT_EQ(both[0].inputs.size(), 2u);
  const int held = both[0].inputs[0] == &logits.node() ? 0 : 1;
  EXPECT_EQ(held, 1);  // (the kernel lists the other first: the test tells the order apart)
  EXPECT_NE(both[0].source.find(absl::StrCat("// in", held, "'s row")), std::string::npos);
  EXPECT_EQ(both[0].source.find(absl::StrCat("// in", 1 - held, "'s row")), std::string::npos);
  EXPECT_EQ(both[0].launches.at(0).shared_bytes, 64000);
  if (!runtime::NvrtcVersion().ok()) GTEST_SKIP() << "NVRTC is not installed";
  for (const codegen::KernelSource* k : {&fixed, &*batch}) {
    absl::StatusOr<runtime::CompileOutput> out = backend::Compile(*k, Target{9, 0, true});
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(out->log.find("spill"), std::string::npos) << out->log;
  }
}

// After the threshold path's three launches (sample, filter, choose), the parts' launches
// walk only the lines it left: a grid bounded per SM, not one block per part of every line.
TEST(CodegenTest, PartsAfterAThresholdWalkTheLinesLeft) {
  const Tensor x(MakeInputNode(DType::kF32, Device::kCPU, Shape({256, 131072}), nullptr));
  const Tensor positions = topk(x, 50).second;
  const std::vector<codegen::KernelSource> ks =
      codegen::PlanAndGenerate({&positions.node()}, Target{9, 0, true}).kernels;
  ASSERT_EQ(ks.size(), 1u);
  const std::vector<codegen::Launch>& launches = ks[0].launches;
  ASSERT_GE(launches.size(), 4u);
  for (size_t i = 0; i < launches.size(); ++i) {
    SCOPED_TRACE(launches[i].entry);
    EXPECT_EQ(launches[i].persistent_per_sm > 0, i >= 3);
  }
  EXPECT_EQ(launches[1].grid[0], 256 * 131072 / 4096);  // the filter: every part of every line
}

TEST(CodegenTest, GenerationIsDeterministic) {
  auto sources = [] {
    std::string all;
    for (const testing::CorpusCase& c : testing::Corpus()) {
      for (const KernelInfo& k : inspect(c.outputs)) all += k.name + "\n" + k.source;
    }
    return all;
  };
  EXPECT_EQ(sources(), sources());
}

std::string ReadGolden(const std::string& name) {
  std::ifstream in("tests/codegen/golden/" + name + ".cu");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Goldens: regenerate with `bazel run //tests/codegen:update_goldens` after a deliberate change.
TEST(CodegenTest, GoldensMatch) {
  for (const testing::CorpusCase& c : testing::Corpus()) {
    if (c.name != "chain" && c.name != "normalizations" && c.name != "api_example") continue;
    for (const KernelInfo& k : inspect(c.outputs)) {
      // Goldens hold the kernel without the prelude every source starts with.
      ASSERT_TRUE(absl::StartsWith(k.source, codegen::Prelude())) << k.name;
      EXPECT_EQ(k.source.substr(codegen::Prelude().size()), ReadGolden(k.name))
          << k.name << " differs from its golden";
    }
  }
}

TEST(CodegenTest, KernelNamesComeFromTheirOps) {
  for (const testing::CorpusCase& c : testing::Corpus()) {
    if (c.name != "api_example") continue;
    const std::vector<KernelInfo> kernels = inspect(c.outputs);
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_EQ(kernels[0].kind, "gemm");
    EXPECT_EQ(kernels[0].name.substr(0, 9), "G_matmul_");
    EXPECT_EQ(kernels[1].kind, "normalization");
    EXPECT_EQ(kernels[1].name.substr(0, 2), "N_");
  }
}

}  // namespace
}  // namespace tessel
