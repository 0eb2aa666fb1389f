// GEMMs on the GPU against the CPU backend: the tensor-core kernels (sm_90a) and the
// portable one, for many shapes (ragged and tiny ones included), both operand layouts,
// batches with broadcasting, epilogues and f32 precisions (bounds: gemm_test_util.h; the
// forms that share a launch or split their work: gemm_groups_test.cc, the same binary).
// Needs a GPU: Bazel tag "gpu"; tools/gpu_bundle.sh packs it for the device machine.
#include <functional>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
#include "tessel.h"
#include "tests/gpu/gemm_test_util.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using gemm_testing::Bound;
using gemm_testing::Compare;
using gemm_testing::Data;
using gemm_testing::GemmTest;
using gemm_testing::OnTensorCoreGpu;
using gemm_testing::UsesTensorCores;

struct Case {
  int64_t m, k, n;
};

TEST_F(GemmTest, ShapesAndDtypes) {
  // Tiny, ragged (K not a multiple of the 64-deep stage, M and N not of the tile), skinny,
  // and more tiles than SMs (each block walks several; the stage ring wraps many times).
  const Case cases[] = {{1, 8, 8},         {5, 8, 16},        {128, 64, 256},
                        {300, 136, 264},   {1000, 72, 520},   {16, 512, 1024},
                        {128, 1024, 2048}, {4096, 256, 2048}, {2048, 1024, 1024}};
  for (DType dt : {DType::kBF16, DType::kF16}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::Message() << c.m << "x" << c.k << "x" << c.n << " " << DTypeName(dt));
      auto build = [&](Device d) {
        return std::vector<Tensor>{matmul(Data({c.m, c.k}, 1, dt, d), Data({c.k, c.n}, 2, dt, d))};
      };
      if (OnTensorCoreGpu()) {
        EXPECT_TRUE(UsesTensorCores(build(Device::kCUDA)));
      }
      Compare(build);
    }
  }
}

TEST_F(GemmTest, LastTileRowsOfEveryHeight) {
  // A last tile row that runs past the output's rows reads A from up to 120 rows above it
  // (codegen/device/gemm_sm90_producer.cuh's tessel_gemm_sm90_a_shift), in steps of 8, as far
  // as the stage's B lets the consumers read on: 1 to 63 rows in the last tile row of 64
  // (fixed rows under 128), 1 to 127 in the last of 128, stages of 64 and 256 columns of B,
  // products stored by TMA and through an epilogue.
  const Case cases[] = {{65, 64, 64},   {100, 192, 520}, {127, 64, 264},   {129, 64, 64},
                        {135, 64, 520}, {200, 192, 64},  {255, 64, 136},   {257, 128, 64},
                        {383, 64, 264}, {1000, 64, 72},  {2055, 64, 2048}, {2100, 64, 2048}};
  for (const Case& c : cases) {
    for (bool epilogue : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << c.m << "x" << c.k << "x" << c.n << (epilogue ? " + bias, gelu" : ""));
      auto build = [&](Device d) {
        Tensor y =
            matmul(Data({c.m, c.k}, 1, DType::kBF16, d), Data({c.k, c.n}, 2, DType::kBF16, d));
        if (epilogue) y = gelu(y + Data({c.n}, 3, DType::kBF16, d));
        return std::vector<Tensor>{y};
      };
      if (OnTensorCoreGpu()) {
        EXPECT_TRUE(UsesTensorCores(build(Device::kCUDA)));
      }
      Compare(build);
    }
  }
}

TEST_F(GemmTest, TransposedOperandsAreReadInPlace) {
  const DType dt = DType::kBF16;
  for (int layout = 1; layout < 4; ++layout) {
    SCOPED_TRACE(::testing::Message() << "layout " << layout);
    auto build = [&](Device d) {
      Tensor a = layout & 1 ? transpose(Data({200, 136}, 1, dt, d)) : Data({136, 200}, 1, dt, d);
      Tensor b = layout & 2 ? transpose(Data({264, 200}, 2, dt, d)) : Data({200, 264}, 2, dt, d);
      return std::vector<Tensor>{matmul(a, b)};
    };
    const std::vector<Tensor> outputs = build(Device::kCUDA);
    const std::vector<KernelInfo> kernels = inspect(outputs);
    ASSERT_EQ(kernels.size(), 1u) << "a transpose must not be copied";
    if (OnTensorCoreGpu()) {
      EXPECT_TRUE(UsesTensorCores(outputs));
    }
    Compare(build);
  }
}

// Reshapes that regroup the batch axes (heads split or merged) and transposes of them are
// read in place, on every GEMM kernel (tensor cores, and f32's SIMT kernel).
TEST_F(GemmTest, BatchReshapesAreReadInPlace) {
  for (DType dt : {DType::kBF16, DType::kF32}) {
    SCOPED_TRACE(DTypeName(dt));
    auto build = [&](Device d) {
      const Tensor a = reshape(Data({6, 40, 24}, 1, dt, d), {2, 3, 40, 24});
      const Tensor b = transpose(reshape(Data({3, 32, 24}, 2, dt, d), {1, 3, 32, 24}));
      const Tensor c = reshape(Data({2, 3, 40, 24}, 3, dt, d), {6, 40, 24});
      return std::vector<Tensor>{matmul(a, b), matmul(c, Data({24, 16}, 4, dt, d))};
    };
    const std::vector<Tensor> outputs = build(Device::kCUDA);
    EXPECT_EQ(inspect({outputs[0]}).size(), 1u) << explain({outputs[0]});
    EXPECT_EQ(inspect({outputs[1]}).size(), 1u) << explain({outputs[1]});
    Compare(build);
  }
}

TEST_F(GemmTest, BatchesAndBroadcastBatches) {
  for (DType dt : {DType::kBF16, DType::kF16}) {
    Compare([&](Device d) {
      return std::vector<Tensor>{
          matmul(Data({3, 70, 64}, 1, dt, d), Data({64, 40}, 2, dt, d)),
          matmul(Data({2, 1, 40, 24}, 3, dt, d), Data({3, 24, 200}, 4, dt, d)),
          matmul(Data({64, 32}, 5, dt, d), transpose(Data({4, 48, 32}, 6, dt, d)))};
    });
  }
}

// Bias along either axis, GELU, a residual, an extra output and a cast: one GEMM kernel.
void ExpectOneFusedGemm(DType dt) {
  auto build = [&](Device d) {
    Tensor x = Data({384, 256}, 1, dt, d), w = Data({256, 512}, 2, dt, d);
    Tensor t = matmul(x, w) + Data({512}, 3, dt, d);                  // bias along columns
    Tensor rows = matmul(x, w) * 0.5 + Data({384, 1}, 4, dt, d);      // bias along rows
    return std::vector<Tensor>{gelu(t) + Data({384, 512}, 5, dt, d),  // residual
                               t,                                     // an extra output
                               cast(relu(rows), DType::kF32)};
  };
  const std::vector<Tensor> outputs = build(Device::kCUDA);
  int gemms = 0;
  for (const KernelInfo& k : inspect(outputs)) gemms += k.kind == "gemm" ? 1 : 0;
  EXPECT_EQ(inspect(outputs).size(), 1u) << explain(outputs);
  EXPECT_EQ(gemms, 1);
  Compare(build);
}

TEST_F(GemmTest, EpiloguesFuseIntoOneKernel) {
  for (DType dt : {DType::kBF16, DType::kF16}) {
    SCOPED_TRACE(DTypeName(dt));
    ExpectOneFusedGemm(dt);
  }
}

TEST_F(GemmTest, BiasGeluResidualOnRaggedAndBatchedTiles) {
  // On sm_90a the epilogue warps compute these (16-bit values in pairs) while the consumers
  // multiply, and the consumers compute each block's last tile: ragged edges, several tiles
  // per block, batches, and 64-row tiles (M < 128; from 65 the last tile row's A box moves).
  for (const Shape& out : {Shape{300, 264}, Shape{2048, 1024}, Shape{3, 200, 136},
                           Shape{2, 40, 264}, Shape{2, 100, 264}}) {
    for (DType dt : {DType::kBF16, DType::kF16}) {
      SCOPED_TRACE(absl::StrCat(out.ToString(), " ", DTypeName(dt)));
      Compare([&](Device d) {
        Shape a = out, b = out;
        a[a.rank() - 1] = 136;
        b[b.rank() - 2] = 136;
        Tensor y = matmul(Data(a, 1, dt, d), Data(b, 2, dt, d));
        return std::vector<Tensor>{gelu(y + Data({out[out.rank() - 1]}, 3, dt, d)) +
                                   Data(out, 4, dt, d)};
      });
    }
  }
}

TEST_F(GemmTest, FallbacksStayCorrect) {
  // f32 operands and mixed dtypes take the portable kernel.
  Compare([](Device d) {
    return std::vector<Tensor>{
        matmul(Data({64, 40}, 3, DType::kF32, d), Data({40, 72}, 4, DType::kF32, d)),
        matmul(Data({64, 40}, 5, DType::kBF16, d), Data({40, 72}, 6, DType::kF16, d))};
  });
}

// Exact f32 (and f64) on the portable kernel: 128-wide tiles (grids of at least 132) and
// 64-wide ones, each layout of each operand (16-byte vectors, B and transposed A copied
// without registers), rows of odd length read element by element, an odd number of 16-deep
// steps, ragged edges, size-1 axes and broadcast batches. f32 sums in another order: 1e-4.
TEST_F(GemmTest, ExactF32EveryLayoutAndEdge) {
  const DType f = DType::kF32;
  for (int layout = 0; layout < 4; ++layout) {
    SCOPED_TRACE(::testing::Message() << "layout " << layout);
    Compare(
        [&](Device d) {
          auto a = [&](int64_t m, int64_t k, uint64_t seed) {
            return layout & 1 ? transpose(Data({k, m}, seed, f, d)) : Data({m, k}, seed, f, d);
          };
          auto b = [&](int64_t k, int64_t n, uint64_t seed) {
            return layout & 2 ? transpose(Data({n, k}, seed, f, d)) : Data({k, n}, seed, f, d);
          };
          return std::vector<Tensor>{matmul(a(1536, 96, 1), b(96, 1536, 2)),
                                     matmul(a(1500, 97, 3), b(97, 1540, 4)),
                                     matmul(a(1536, 64, 5), b(64, 1539, 6)),
                                     matmul(a(70, 33, 7), b(33, 50, 8)) + Data({50}, 9, f, d),
                                     matmul(a(1, 5, 10), b(5, 1, 11)),
                                     matmul(a(7, 1, 12), b(1, 9, 13))};
        },
        1e-4, 1e-4);
  }
  Compare(
      [&](Device d) {
        const DType f64 = DType::kF64;
        return std::vector<Tensor>{
            matmul(Data({3, 40, 24}, 1, f, d), Data({24, 36}, 2, f, d)),
            matmul(Data({2, 1, 40, 24}, 3, f, d), Data({3, 24, 20}, 4, f, d)),
            matmul(transpose(Data({30, 20}, 5, f64, d)), Data({30, 18}, 6, f64, d)),
            matmul(Data({130, 98}, 7, f64, d), transpose(Data({66, 98}, 8, f64, d)))};
      },
      1e-4, 1e-4);
}

// Rows that are not 16-byte multiples (K or N not a multiple of 8) are staged to padded rows
// and stay on tensor cores: K odd, N odd, both, a transposed operand, batches (one operand
// broadcast), an epilogue with a residual, f16, a size-1 edge, and a varying batch whose
// weights are staged (the rows argument).
TEST_F(GemmTest, UnalignedRowsStayOnTensorCores) {
  const DType b16 = DType::kBF16, f16 = DType::kF16;
  auto build = [&](Device d) {
    const Tensor w = Data({95, 45}, 9, b16, d);
    return std::vector<Tensor>{
        matmul(Data({70, 33}, 1, b16, d), Data({33, 48}, 2, b16, d)),
        matmul(Data({300, 64}, 3, b16, d), Data({64, 45}, 4, b16, d)),
        matmul(Data({257, 95}, 5, b16, d), Data({95, 131}, 6, b16, d)),
        matmul(transpose(Data({33, 70}, 7, b16, d)), Data({33, 40}, 8, b16, d)),
        gelu(matmul(Data({3, 100, 95}, 10, b16, d), w) + Data({45}, 11, b16, d)) +
            Data({3, 100, 45}, 12, b16, d),
        matmul(Data({2, 20, 30}, 13, f16, d), Data({2, 30, 50}, 14, f16, d)),
        matmul(Data({1, 7}, 15, b16, d), Data({7, 1}, 16, b16, d))};
  };
  if (OnTensorCoreGpu()) {
    for (const Tensor& t : build(Device::kCUDA)) {
      EXPECT_TRUE(UsesTensorCores({t})) << explain({t});
    }
  }
  Compare(build);
  // A batch that varies: B's rows (45) staged, A's rows the argument.
  const Tensor w = Data({64, 45}, 17, b16, Device::kCUDA);
  const Tensor w_cpu = Data({64, 45}, 17, b16, Device::kCPU);
  for (int64_t rows : {5, 37, 130}) {
    SCOPED_TRACE(rows);
    const Tensor gpu = matmul(Data({rows, 64}, 18, b16, Device::kCUDA), w) * 2.0;
    const Tensor cpu = matmul(Data({rows, 64}, 18, b16, Device::kCPU), w_cpu) * 2.0;
    testing::ExpectClose(gpu.to_vector<float>(), cpu.to_vector<double>(), Bound(b16), 1e-2);
  }
}

// f32 under MatmulPrecision::kTF32: mma.sync on TF32 (both layouts, ragged edges, batches,
// an epilogue, rows that are not 16-byte multiples, staged), against the CPU
// backend, which rounds its operands the same way: they agree to accumulation order, far
// closer than TF32 is to f32 (~1e-3 here).
TEST_F(GemmTest, Tf32WhenChosen) {
  set_matmul_precision(MatmulPrecision::kTF32);
  auto build = [](Device d) {
    const DType f = DType::kF32;
    return std::vector<Tensor>{
        matmul(Data({300, 200}, 1, f, d), Data({200, 264}, 2, f, d)) + Data({264}, 3, f, d),
        matmul(transpose(Data({72, 132}, 4, f, d)), transpose(Data({36, 72}, 5, f, d))),
        gelu(matmul(Data({3, 40, 64}, 6, f, d), Data({64, 128}, 7, f, d))),
        matmul(Data({70, 33}, 8, f, d), Data({33, 50}, 9, f, d))};
  };
  const std::vector<Tensor> outputs = build(Device::kCUDA);
  set_matmul_precision(MatmulPrecision::kHighest);
  int tf32_kernels = 0;
  for (const KernelInfo& k : inspect(outputs)) {
    tf32_kernels += absl::StrContains(k.source, "TF32 = true") ? 1 : 0;
  }
  if (OnTensorCoreGpu()) {
    EXPECT_EQ(tf32_kernels, 4) << explain(outputs);
  }
  set_matmul_precision(MatmulPrecision::kTF32);
  Compare(build, 1e-4, 1e-4);
  set_matmul_precision(MatmulPrecision::kHighest);

  // The tensor cores read f32 as TF32 the way the CPU backend does (truncated): times the
  // identity, every output is one product, exact, for every pattern of the 13 bits dropped.
  auto times_identity = [](Device d) {
    std::vector<float> a(128 * 64), eye(64 * 64, 0.0f);
    for (int i = 0; i < 128 * 64; ++i)
      a[i] = (1.0f + (i % 7) * 0x1p-10f) + (i * 37 % 8192) * 0x1p-23f;
    for (int j = 0; j < 64; ++j) eye[j * 64 + j] = 1.0f;
    set_matmul_precision(MatmulPrecision::kTF32);
    const Tensor x = from_vector(a, {128, 64}, DType::kF32, d);
    const Tensor i = from_vector(eye, {64, 64}, DType::kF32, d);
    std::vector<float> y = matmul(x, i).to_vector<float>();           // A read as stored
    const Tensor x_rows = from_vector(a, {64, 128}, DType::kF32, d);  // B MN-major: staged
    const std::vector<float> t = matmul(i, x_rows).to_vector<float>();
    set_matmul_precision(MatmulPrecision::kHighest);
    y.insert(y.end(), t.begin(), t.end());
    return y;
  };
  EXPECT_EQ(times_identity(Device::kCUDA), times_identity(Device::kCPU));
}

// TF32 with B as stored ([k, n], MN-major) on tiles of 128 rows, or 64: the Hopper kernel
// reads B into registers and multiplies transposed (gemm_sm90.cuh's B_REGS), no transposed
// copy. 128 x 256, 128 x 128 and 64-row tiles (16 and 50 rows), ragged rows and columns, K
// not a multiple of 8 (A's rows staged), B's rows staged, a batch, a bias and GELU in the
// epilogue; against the CPU backend's TF32.
TEST_F(GemmTest, Tf32ReadsBAsStored) {
  set_matmul_precision(MatmulPrecision::kTF32);
  auto build = [](Device d) {
    const DType f = DType::kF32;
    return std::vector<Tensor>{
        matmul(Data({2000, 300}, 1, f, d), Data({300, 2100}, 2, f, d)),
        gelu(matmul(Data({1100, 77}, 3, f, d), Data({77, 2100}, 4, f, d)) + Data({2100}, 5, f, d)),
        matmul(Data({1000, 64}, 6, f, d), Data({64, 2101}, 7, f, d)),
        matmul(Data({3, 700, 96}, 8, f, d), Data({96, 1000}, 9, f, d)),
        matmul(Data({16, 300}, 10, f, d), Data({300, 1000}, 11, f, d)),
        matmul(Data({50, 77}, 12, f, d), Data({77, 2101}, 13, f, d)) * 2.0};
  };
  const std::vector<Tensor> outputs = build(Device::kCUDA);
  const Target t = runtime::DeviceTarget();
  if (t.major == 9 && t.arch_specific) {
    for (const Tensor& out : outputs) {
      const std::string plan = explain({out});
      EXPECT_TRUE(absl::StrContains(plan, "B read into registers")) << plan;
    }
  }
  Compare(build, 1e-4, 1e-4);
  set_matmul_precision(MatmulPrecision::kHighest);
}

// MatmulPrecision::kHigh (three TF32 products) against an f64 reference: its error stays
// within a small multiple of exact f32's (the CPU backend's), far below TF32's; on both
// layouts, staged rows, a batch, an epilogue and a long same-sign sum.
TEST_F(GemmTest, ThreeTf32ProductsMatchF32) {
  const DType f = DType::kF32;
  auto build = [&](MatmulPrecision precision, Device d) {
    set_matmul_precision(precision);
    std::vector<Tensor> out = {
        matmul(Data({300, 1000}, 1, f, d), Data({1000, 264}, 2, f, d)),
        matmul(transpose(Data({200, 130}, 3, f, d)), transpose(Data({96, 200}, 4, f, d))),
        gelu(matmul(Data({3, 70, 33}, 5, f, d), Data({33, 50}, 6, f, d))),
        // Long sums of same-sign terms: where adds that truncate would show.
        matmul(abs(Data({128, 4096}, 7, f, d)), abs(Data({4096, 128}, 8, f, d)))};
    set_matmul_precision(MatmulPrecision::kHighest);
    return out;
  };
  const std::vector<Tensor> high = build(MatmulPrecision::kHigh, Device::kCUDA);
  const std::vector<Tensor> tf32 = build(MatmulPrecision::kTF32, Device::kCUDA);
  const std::vector<Tensor> f32 = build(MatmulPrecision::kHighest, Device::kCPU);
  // The same graphs in f64 on the CPU, from the same f32 values.
  auto in = [&](const Shape& s, uint64_t seed) {
    return cast(Data(s, seed, f, Device::kCPU), DType::kF64);
  };
  const std::vector<Tensor> reference = {
      matmul(in({300, 1000}, 1), in({1000, 264}, 2)),
      matmul(transpose(in({200, 130}, 3)), transpose(in({96, 200}, 4))),
      gelu(matmul(in({3, 70, 33}, 5), in({33, 50}, 6))),
      matmul(abs(in({128, 4096}, 7)), abs(in({4096, 128}, 8)))};
  for (size_t i = 0; i < high.size(); ++i) {
    SCOPED_TRACE(i);
    const std::vector<double> ref = reference[i].to_vector<double>();
    auto error = [&](const Tensor& t) {
      const std::vector<double> v = t.to_vector<double>();
      double most = 0;
      for (size_t j = 0; j < v.size(); ++j) most = std::max(most, std::abs(v[j] - ref[j]));
      return most;
    };
    const double e_high = error(high[i]), e_tf32 = error(tf32[i]), e_f32 = error(f32[i]);
    EXPECT_LE(e_high, 16 * e_f32 + 1e-6) << "f32 " << e_f32 << ", tf32 " << e_tf32;
    EXPECT_GT(e_tf32, 20 * e_high) << "f32 " << e_f32 << ", high " << e_high;
  }
  // Infinities come out as in f32, not as the NaN of an infinite part times a zero remainder.
  const float inf = std::numeric_limits<float>::infinity();
  auto with_inf = [&](Device d) {
    set_matmul_precision(MatmulPrecision::kHigh);
    Tensor y = matmul(from_vector({inf, 1.0f, 2.0f, -3.0f}, {2, 2}, f, d),
                      from_vector({1.0f, 0.5f, 1.0f, 2.0f}, {2, 2}, f, d));
    set_matmul_precision(MatmulPrecision::kHighest);
    return y.to_vector<float>();
  };
  EXPECT_EQ(with_inf(Device::kCUDA), with_inf(Device::kCPU));
  EXPECT_EQ(with_inf(Device::kCPU), (std::vector<float>{inf, inf, -1.0f, -5.0f}));
}

TEST_F(GemmTest, RepeatedRunsAgreeBitForBit) {
  auto run = [] {
    Tensor c = matmul(Data({512, 512}, 1, DType::kBF16, Device::kCUDA),
                      Data({512, 1024}, 2, DType::kBF16, Device::kCUDA));
    return c.to_vector<float>();
  };
  const std::vector<float> first = run();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(run(), first);
}

}  // namespace
}  // namespace tessel
