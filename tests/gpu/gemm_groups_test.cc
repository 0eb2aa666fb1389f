// GEMMs that share a launch or split their work, on the GPU against the CPU backend (bounds:
// gemm_test_util.h): few rows on swapped tiles, sibling, dual and grouped GEMMs, and tiles
// whose K is cut into slices for the SMs to share. Part of the `gemm_test` binary.
// Needs a GPU: Bazel tag "gpu"; tools/gpu_bundle.sh packs it for the device machine.
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
#include "tessel.h"
#include "tests/gpu/gemm_test_util.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using gemm_testing::Build;
using gemm_testing::CompareAsOneKernel;
using gemm_testing::Data;
using gemm_testing::GemmTest;

// Few rows (gemm_sm90.cuh's SWAP: rows in wgmma's N, 16- or 32-row tiles) against the CPU:
// one row to 32 across both tile heights, widths of one and two consumers and ragged ones,
// ragged K, B either layout, f16, an epilogue in the epilogue warps, a batch against a shared
// weight, siblings, SwiGLU's dual GEMM.
TEST_F(GemmTest, FewRowsTradePlacesInTheTensorCores) {
  for (DType dt : {DType::kBF16, DType::kF16}) {
    for (int64_t m : {1, 2, 7, 16, 17, 31, 32}) {
      SCOPED_TRACE(::testing::Message() << "m " << m << " " << DTypeName(dt));
      auto plain = [&](Device d) {
        return std::vector<Tensor>{matmul(Data({m, 200}, 1, dt, d), Data({200, 4096}, 2, dt, d))};
      };
      auto wide = [&](Device d) {
        return std::vector<Tensor>{matmul(Data({m, 64}, 3, dt, d), Data({64, 20000}, 4, dt, d))};
      };
      auto transposed = [&](Device d) {
        return std::vector<Tensor>{
            matmul(Data({m, 136}, 5, dt, d), transpose(Data({1000, 136}, 6, dt, d))) * 0.5};
      };
      auto epilogue = [&](Device d) {
        return std::vector<Tensor>{
            gelu(matmul(Data({m, 128}, 7, dt, d), Data({128, 264}, 8, dt, d)) +
                 Data({264}, 9, dt, d)) +
            Data({m, 264}, 10, dt, d)};
      };
      auto odd_width = [&](Device d) {
        return std::vector<Tensor>{
            matmul(Data({m, 72}, 11, dt, d), transpose(Data({45, 72}, 12, dt, d))) + 1.0};
      };
      auto batch = [&](Device d) {
        return std::vector<Tensor>{matmul(Data({3, m, 64}, 13, dt, d), Data({64, 96}, 14, dt, d))};
      };
      auto siblings = [&](Device d) {
        const Tensor x = Data({m, 256}, 15, dt, d);
        return std::vector<Tensor>{matmul(x, Data({256, 512}, 16, dt, d)),
                                   matmul(x, Data({256, 128}, 17, dt, d)),
                                   gelu(matmul(x, Data({256, 128}, 18, dt, d)))};
      };
      auto swiglu = [&](Device d) {
        const Tensor x = Data({m, 128}, 19, dt, d);
        return std::vector<Tensor>{silu(matmul(x, Data({128, 1000}, 20, dt, d))) *
                                   matmul(x, Data({128, 1000}, 21, dt, d))};
      };
      CompareAsOneKernel({plain, wide, transposed, epilogue, odd_width, batch, siblings, swiglu});
    }
  }
}

// 65-128 rows over many columns: one swapped tile row of 128 (A's box the rows rounded up to
// 8), in every form: plain, B read transposed, an epilogue ending inside a tile, a batch,
// siblings and a dual GEMM (each wide enough for half the SMs).
TEST_F(GemmTest, RowsPastSixtyFourOnWideWeightsTradePlaces) {
  for (DType dt : {DType::kBF16, DType::kF16}) {
    for (int64_t m : {65, 72, 100, 127, 128}) {
      SCOPED_TRACE(::testing::Message() << "m " << m << " " << DTypeName(dt));
      auto plain = [&](Device d) {
        return std::vector<Tensor>{matmul(Data({m, 136}, 1, dt, d), Data({136, 8448}, 2, dt, d))};
      };
      auto transposed = [&](Device d) {
        return std::vector<Tensor>{
            matmul(Data({m, 72}, 3, dt, d), transpose(Data({4300, 72}, 4, dt, d))) * 0.5};
      };
      auto epilogue = [&](Device d) {
        return std::vector<Tensor>{
            gelu(matmul(Data({m, 64}, 5, dt, d), Data({64, 4232}, 6, dt, d)) +
                 Data({4232}, 7, dt, d)) +
            Data({m, 4232}, 8, dt, d)};
      };
      auto batch = [&](Device d) {
        return std::vector<Tensor>{matmul(Data({2, m, 64}, 9, dt, d), Data({64, 4224}, 10, dt, d))};
      };
      auto siblings = [&](Device d) {
        const Tensor x = Data({m, 128}, 11, dt, d);
        return std::vector<Tensor>{matmul(x, Data({128, 4096}, 12, dt, d)),
                                   matmul(x, Data({128, 264}, 13, dt, d)),
                                   gelu(matmul(x, Data({128, 136}, 14, dt, d)))};
      };
      auto swiglu = [&](Device d) {
        const Tensor x = Data({m, 128}, 15, dt, d);
        return std::vector<Tensor>{silu(matmul(x, Data({128, 4400}, 16, dt, d))) *
                                   matmul(x, Data({128, 4400}, 17, dt, d))};
      };
      CompareAsOneKernel({plain, transposed, epilogue, batch, siblings, swiglu});
    }
  }
}

// Experts of at most 32 rows each (a decode step's tokens routed to them) on swapped tiles of
// 16 and of 32 rows. (Apart from the test above: there the rows vary from program to program,
// and a grouped GEMM takes no rows argument, so its plan splits.)
TEST_F(GemmTest, FewRowExpertsTradePlacesToo) {
  for (DType dt : {DType::kBF16, DType::kF16}) {
    for (const std::vector<int64_t>& rows :
         {std::vector<int64_t>{1, 5, 16}, std::vector<int64_t>{1, 20, 32, 3}}) {
      SCOPED_TRACE(::testing::Message() << rows.size() << " experts, " << DTypeName(dt));
      auto experts = [&](Device d) {
        std::vector<Tensor> x, w;
        for (size_t e = 0; e < rows.size(); ++e) {
          x.push_back(Data({rows[e], 136}, 30 + e, dt, d));
          w.push_back(Data({136, e % 2 ? 4096 : 264}, 40 + e, dt, d));
        }
        return grouped_matmul(x, w);
      };
      CompareAsOneKernel({experts});
    }
  }
}

// Sibling GEMMs (matmuls of the same A, fusion/gemm_groups.cc) run as one Hopper kernel:
// each part's output and epilogue against the CPU, over one row, rows that fill no tile and
// several tiles, widths that end inside a tile, plain parts (stored by TMA) and B read
// transposed with an odd width (lanes one column apart).
TEST_F(GemmTest, SiblingGemmsShareOneLaunch) {
  for (DType dt : {DType::kBF16, DType::kF16}) {
    for (int64_t m : {1, 64, 77, 300}) {
      SCOPED_TRACE(::testing::Message() << "m " << m << " " << DTypeName(dt));
      auto epilogues = [&](Device d) {
        const Tensor x = Data({m, 136}, 1, dt, d);
        return std::vector<Tensor>{
            matmul(x, Data({136, 264}, 2, dt, d)),
            gelu(matmul(x, Data({136, 128}, 3, dt, d)) + Data({128}, 4, dt, d)),
            matmul(x, Data({136, 136}, 5, dt, d)) * 0.5 + Data({m, 136}, 6, dt, d)};
      };
      auto plain = [&](Device d) {
        const Tensor x = Data({m, 64}, 7, dt, d);
        return std::vector<Tensor>{matmul(x, Data({64, 512}, 8, dt, d)),
                                   matmul(x, Data({64, 128}, 9, dt, d)),
                                   matmul(x, Data({64, 136}, 10, dt, d))};
      };
      auto transposed = [&](Device d) {
        const Tensor x = Data({m, 72}, 11, dt, d);
        return std::vector<Tensor>{matmul(x, transpose(Data({45, 72}, 12, dt, d))) + 1.0,
                                   matmul(x, transpose(Data({200, 72}, 13, dt, d)))};
      };
      CompareAsOneKernel({epilogues, plain, transposed});
    }
  }
}

// Dual GEMMs (two products of the same A met elementwise, fusion/gemm_groups.cc): SwiGLU and
// GEGLU against the CPU over one row, rows of one consumer and ragged ones, 64- and
// 128-wide tiles (4096 rows: GEGLU's 320 tiles, more than two rounds, keep A in L2), the gate
// also an output, B read transposed.
TEST_F(GemmTest, DualGemmsNeverWriteTheirProducts) {
  for (DType dt : {DType::kBF16, DType::kF16}) {
    for (int64_t m : {1, 63, 100, 300, 4096}) {
      SCOPED_TRACE(::testing::Message() << "m " << m << " " << DTypeName(dt));
      auto swiglu = [&](Device d) {
        const Tensor x = Data({m, 136}, 1, dt, d);
        return std::vector<Tensor>{silu(matmul(x, Data({136, 264}, 2, dt, d))) *
                                   matmul(x, Data({136, 264}, 3, dt, d))};
      };
      auto geglu = [&](Device d) {
        const Tensor x = Data({m, 64}, 4, dt, d);
        const Tensor gate = matmul(x, Data({64, 1160}, 5, dt, d));
        return std::vector<Tensor>{gelu(gate) * matmul(x, Data({64, 1160}, 6, dt, d)), gate};
      };
      auto transposed = [&](Device d) {
        const Tensor x = Data({m, 72}, 7, dt, d);
        return std::vector<Tensor>{matmul(x, transpose(Data({45, 72}, 8, dt, d))) -
                                   matmul(x, transpose(Data({45, 72}, 9, dt, d)))};
      };
      // Each product is rounded to 16 bits before they meet: an ulp of one (0.03 near 4)
      // where the GPU's sum order tips the rounding may land on a result near 0.
      CompareAsOneKernel({swiglu, geglu, transposed}, 0.05);
    }
  }
}

// grouped_matmul of experts of `rows` each, x [rows, k] by w [k, n], data from `seed` on.
std::vector<Tensor> Experts(std::initializer_list<int64_t> rows, int64_t k, int64_t n, DType dt,
                            Device d, int seed) {
  std::vector<Tensor> x, w;
  for (int64_t m : rows) {
    x.push_back(Data({m, k}, ++seed, dt, d));
    w.push_back(Data({k, n}, ++seed, dt, d));
  }
  return grouped_matmul(x, w);
}

// Few rows on tiles of 64 x 128 where those take one round and 64 x 64 two
// (codegen/gemm_sm90_tiles.cc): a dual GEMM (68 tiles), a single one (112) and 8 grouped
// experts of at most 50 rows (88), ragged rows, each against the CPU.
TEST_F(GemmTest, FewRowsTakeTheWiderTileThatSavesARound) {
  const DType dt = DType::kBF16;
  auto swiglu = [&](Device d) {
    const Tensor x = Data({48, 256}, 1, dt, d);
    return std::vector<Tensor>{silu(matmul(x, Data({256, 8704}, 2, dt, d))) *
                               matmul(x, Data({256, 8704}, 3, dt, d))};
  };
  auto single = [&](Device d) {
    return std::vector<Tensor>{matmul(Data({64, 192}, 4, dt, d), Data({192, 14336}, 5, dt, d))};
  };
  auto experts = [&](Device d) {
    return Experts({1, 50, 7, 33, 12, 2, 45, 20}, 128, 1408, dt, d, 10);
  };
  const Target t = runtime::DeviceTarget();
  if (t.major == 9 && t.arch_specific) {
    for (const Build& build : std::vector<Build>{swiglu, single, experts}) {
      EXPECT_NE(explain(build(Device::kCUDA)).find("tiles of 64 x 128"), std::string::npos)
          << explain(build(Device::kCUDA));
    }
  }
  CompareAsOneKernel({swiglu, single, experts});
}

// Grouped GEMMs (independent problems in one persistent launch, fusion/gemm_groups.cc):
// experts of 1 to 300 rows, each with its own K, N and epilogue, in one kernel; and eight
// experts of at most 64 rows by grouped_matmul (64-row tiles, stored by TMA).
TEST_F(GemmTest, GroupedExpertsOneLaunch) {
  for (DType dt : {DType::kBF16, DType::kF16}) {
    SCOPED_TRACE(DTypeName(dt));
    auto mixed = [&](Device d) {
      return std::vector<Tensor>{
          matmul(Data({1, 136}, 1, dt, d), Data({136, 264}, 2, dt, d)),
          gelu(matmul(Data({77, 64}, 3, dt, d), Data({64, 128}, 4, dt, d)) + Data({128}, 5, dt, d)),
          matmul(Data({300, 200}, 6, dt, d), Data({200, 72}, 7, dt, d)) * 0.5 +
              Data({300, 72}, 8, dt, d),
          matmul(Data({129, 8}, 9, dt, d), Data({8, 16}, 10, dt, d))};
    };
    auto experts = [&](Device d) {
      return Experts({1, 50, 7, 33, 12, 2, 45, 64}, 256, 200, dt, d, 20);
    };
    CompareAsOneKernel({mixed, experts});
  }
}

// K slices (too few tiles for the SMs and a long K: every tile's K cut into slices that
// different blocks multiply, the last to finish adding the pieces, device/gemm_sm90_fixup.cuh)
// over swapped and 64-row tiles, ragged rows, columns and K: plain outputs (stored by TMA),
// epilogues, siblings and dual GEMMs, in 2 to 8 slices (from 8 rows: swapped tiles mostly
// past the last row stay whole). Repeats agree bit for bit, whichever block finishes a tile
// last.
TEST_F(GemmTest, KSlicesShareLongKBetweenTheSms) {
  const Target t = runtime::DeviceTarget();
  for (DType dt : {DType::kBF16, DType::kF16}) {
    for (int64_t m : {8, 17, 50, 64}) {
      SCOPED_TRACE(::testing::Message() << "m " << m << " " << DTypeName(dt));
      auto plain = [&](Device d) {
        return std::vector<Tensor>{matmul(Data({m, 4096}, 1, dt, d), Data({4096, 512}, 2, dt, d))};
      };
      auto epilogue = [&](Device d) {
        return std::vector<Tensor>{
            gelu(matmul(Data({m, 1000}, 3, dt, d), Data({1000, 200}, 4, dt, d)) +
                 Data({200}, 5, dt, d)) +
            Data({m, 200}, 6, dt, d)};
      };
      auto siblings = [&](Device d) {
        const Tensor x = Data({m, 2048}, 7, dt, d);
        return std::vector<Tensor>{matmul(x, Data({2048, 1024}, 8, dt, d)),
                                   matmul(x, Data({2048, 256}, 9, dt, d)),
                                   gelu(matmul(x, Data({2048, 200}, 10, dt, d)))};
      };
      auto swiglu = [&](Device d) {
        const Tensor x = Data({m, 2048}, 11, dt, d);
        return std::vector<Tensor>{silu(matmul(x, Data({2048, 2752}, 12, dt, d))) *
                                   matmul(x, Data({2048, 2752}, 13, dt, d))};
      };
      for (const Build& build : {Build(plain), Build(epilogue), Build(siblings), Build(swiglu)}) {
        if (t.major == 9 && t.arch_specific) {
          const std::string text = explain(build(Device::kCUDA));
          EXPECT_TRUE(absl::StrContains(text, "slices for the SMs to share")) << text;
        }
      }
      // Dual: as in DualGemmsNeverWriteTheirProducts.
      CompareAsOneKernel({plain, epilogue, siblings});
      CompareAsOneKernel({swiglu}, 0.05);
      const std::vector<float> first = plain(Device::kCUDA)[0].to_vector<float>();
      for (int i = 0; i < 3; ++i) EXPECT_EQ(plain(Device::kCUDA)[0].to_vector<float>(), first);
    }
  }
}

// One round of tiles and a second of few: those tiles' K in slices over the SMs
// (gemm_k_slices.cc), the rest whole. Tall outputs of one 128-wide tile column (150 tiles:
// 18 in 2 slices), stored by TMA; an epilogue over ragged rows and columns (149: 17 in 2);
// and a dual GEMM of 128 x 128 tiles (172: 40 in 3 slices). (Wider outputs take whole waves
// of 128-wide tiles instead: gemm_sm90_tiles.cc.) Repeats agree bit for bit.
TEST_F(GemmTest, TheLastRoundsTilesShareTheirK) {
  const Target t = runtime::DeviceTarget();
  for (DType dt : {DType::kBF16, DType::kF16}) {
    SCOPED_TRACE(DTypeName(dt));
    auto plain = [&](Device d) {
      return std::vector<Tensor>{
          matmul(Data({19200, 1024}, 1, dt, d), Data({1024, 128}, 2, dt, d))};
    };
    auto epilogue = [&](Device d) {
      return std::vector<Tensor>{
          gelu(matmul(Data({19000, 1000}, 3, dt, d), Data({1000, 120}, 4, dt, d)) +
               Data({120}, 5, dt, d)) +
          Data({19000, 120}, 6, dt, d)};
    };
    auto swiglu = [&](Device d) {
      const Tensor x = Data({200, 2048}, 7, dt, d);
      return std::vector<Tensor>{silu(matmul(x, Data({2048, 11000}, 8, dt, d))) *
                                 matmul(x, Data({2048, 11000}, 9, dt, d))};
    };
    for (const Build& build : {Build(plain), Build(epilogue), Build(swiglu)}) {
      if (t.major == 9 && t.arch_specific) {
        const std::string text = explain(build(Device::kCUDA));
        EXPECT_TRUE(absl::StrContains(text, "the last round's tiles' K in")) << text;
      }
    }
    CompareAsOneKernel({plain, epilogue});
    CompareAsOneKernel({swiglu}, 0.05);
    const std::vector<float> first = epilogue(Device::kCUDA)[0].to_vector<float>();
    for (int i = 0; i < 2; ++i) EXPECT_EQ(epilogue(Device::kCUDA)[0].to_vector<float>(), first);
  }
}

}  // namespace
}  // namespace tessel
