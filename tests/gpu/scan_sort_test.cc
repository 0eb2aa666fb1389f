// Scans and sorts on the GPU against the CPU backend (bounds as in gpu_test.cc).
// Needs a GPU: Bazel tag "gpu"; tools/gpu_bundle.sh packs it for the device machine.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/gpu/gpu_compare.h"

namespace tessel {
namespace {

using testing::Compare;
using testing::Data;
using testing::GpuTest;

// Scans on the GPU: contiguous lines (a block per line, ragged and longer than a tile) and
// strided ones, sums and products, floats accumulating in double as on the CPU (so f32
// results agree to the last bit nearly everywhere) and integers wrapping in 64 bits.
TEST_F(GpuTest, Scans) {
  for (DType dt : {DType::kF32, DType::kBF16, DType::kF64}) {
    Compare([dt](Device d) {
      const Tensor x = Data({5, 3001}, 31, dt, d);
      const Tensor y = Data({7, 130, 9}, 32, dt, d, 0.9f, 1.1f);
      return std::vector<Tensor>{
          cumsum(x, 1),  cumsum(x, 0), cumsum(exp(x) - 1.0, -1),   cumprod(y, 1),
          cumprod(y, 2), cumsum(y, 0), cumsum(reshape(x, {-1}), 0)};
    });
  }
  Compare([](Device d) {
    const Tensor i = cast(floor(Data({4, 1000}, 33, DType::kF32, d, -50, 50)), DType::kI32);
    const Tensor big =
        from_vector(std::vector<int64_t>(300, int64_t{1} << 61), {300}, DType::kI64, d);
    return std::vector<Tensor>{cumsum(i, 1), cumsum(gt(i, 0.0), 0),
                               cumprod(remainder(i, 3.0) + 1, 1), cumsum(big, 0)};
  });
}

// Sorts on the GPU give the CPU's stable order exactly (values and indices): ties, NaN, +-inf
// and -0, every key type, both directions, strided lines, a prologue; lines a block holds,
// long lines with small k (selected again from the parts' runs, over several launches) and
// large k (runs merged).
TEST_F(GpuTest, Sorts) {
  for (DType dt : {DType::kF32, DType::kBF16, DType::kI32, DType::kF64, DType::kI64}) {
    Compare([dt](Device d) {
      const Tensor nan =
          where(gt(Data({9, 300}, 41, DType::kF32, d), 1.8), NAN, zeros({}, DType::kF32, d));
      const Tensor x = cast(floor(Data({9, 300}, 42, DType::kF32, d, -4, 4)) + nan, dt);
      const Tensor wide = cast(Data({2, 20000}, 43, DType::kF32, d), dt);
      const Tensor ties = cast(floor(Data({3, 70001}, 44, DType::kF32, d, -300, 300)), dt);
      const Tensor tall = cast(floor(Data({9000, 3}, 46, DType::kF32, d, -50, 50)), dt);
      const Tensor strided = cast(floor(Data({2, 16385, 7}, 47, DType::kF32, d, -2, 2)), dt);
      std::vector<Tensor> out;
      // wide: parts read as vectors (selected, or sorted whole and merged for k = 2000);
      // ties: lines of odd length, read a key at a time; tall: long strided lines; strided:
      // strided lines of 4 parts and one item, merged as 8 runs (3 of them padding, which
      // read past the last line's end: fuzz seed 23126902, seen by compute-sanitizer).
      for (const auto& [values, indices] :
           {topk(x, 5, 1), topk(x, 3, 0, false), topk(wide, 32, -1), topk(x, 1, 1, false),
            sort(x, 1), sort(x, 0, true), topk(wide, 50), topk(ties, 1000, 1, false),
            topk(ties, 3000), sort(ties, 1, true), sort(cast(x, DType::kF32) * -2.0, 1),
            topk(wide, 2000), topk(tall, 40, 0), sort(tall, 0, true), sort(strided, 1)}) {
        out.push_back(values);
        out.push_back(indices);
      }
      return out;
    });
  }
  Compare([](Device d) {
    std::vector<float> v = {3, NAN, 1, 3, -2, 1, INFINITY, -INFINITY, NAN, 0, -0.0f, 3};
    const Tensor f = from_vector(v, {3, 4}, DType::kF32, d);
    const Tensor bits = gt(Data({5, 5000}, 45, DType::kF32, d), 0.0);
    const Tensor lows = full({6}, -INFINITY, DType::kF32, d);
    return std::vector<Tensor>{argsort(f, 1),    argsort(f, 0, true),
                               argsort(bits, 1), topk(bits, 40, 1).second,
                               argsort(lows),    argsort(f, 1, true)};
  });
}

// Small k over long lines by a sampled threshold (sort_threshold.cuh), and the lines it
// leaves to the parts' path: many keys tied at the threshold (more candidates than fit), a
// line of equal values, NaN (the largest), every key width, either direction, a prologue.
TEST_F(GpuTest, TopKByThreshold) {
  for (DType dt : {DType::kF32, DType::kBF16, DType::kI32, DType::kF64, DType::kI64}) {
    Compare([dt](Device d) {
      const Tensor spread = cast(Data({3, 131072}, 81, DType::kF32, d, -1000, 1000), dt);
      const Tensor tied = cast(floor(Data({2, 131072}, 82, DType::kF32, d, -3, 3)), dt);
      const Tensor nan =
          where(gt(Data({2, 131072}, 83, DType::kF32, d), 1.99), NAN, zeros({}, DType::kF32, d));
      const Tensor flat = full({1, 131072}, 7.0, dt, d);
      std::vector<Tensor> out;
      for (const auto& [values, indices] :
           {topk(spread, 50), topk(spread, 7, -1, false), topk(tied, 50), topk(flat, 20),
            topk(cast(Data({2, 131072}, 84, DType::kF32, d) + nan, dt), 64),
            topk(exp(cast(Data({3, 70001}, 85, DType::kF32, d, -5, 5), dt)) * 2.0, 10, -1,
                 false)}) {
        out.push_back(values);
        out.push_back(indices);
      }
      return out;
    });
  }
}

// scatter_add on the GPU: the CPU's sums bit for bit (the same order of additions), along
// every axis, with an index smaller than src and x, many repeated targets, every dtype, indices
// checked and known in range; the same bits from run to run; and an index out of range throws
// the CPU's message.
TEST_F(GpuTest, ScatterAdd) {
  auto ids = [](const Shape& shape, uint64_t seed, int64_t range, Device d) {
    return cast(floor(Data(shape, seed, DType::kF32, d, 0, static_cast<float>(range))),
                DType::kI64);
  };
  for (DType dt : {DType::kF32, DType::kBF16, DType::kF64, DType::kI32, DType::kI64}) {
    Compare(
        [&](Device d) {
          const Tensor x = cast(Data({50, 8}, 61, DType::kF32, d, -50, 50), dt);
          const Tensor src = cast(Data({300, 9}, 62, DType::kF32, d, -50, 50), dt);
          const Tensor y = cast(Data({4, 30, 6}, 63, DType::kF32, d, -50, 50), dt);
          return std::vector<Tensor>{
              scatter_add(x, 0, ids({300, 8}, 64, 50, d), src),
              scatter_add(x, 1, cast(ids({20, 5}, 65, 8, d), DType::kI32), src * 2.0),
              // Known in range (a remainder): no check ([ Note -- value ranges ]).
              scatter_add(x, 1, remainder(ids({20, 5}, 72, 8, d), 8.0), src),
              scatter_add(y, 1, ids({3, 5000, 6}, 66, 30, d),
                          cast(Data({4, 5000, 6}, 67, DType::kF32, d), dt)),
              scatter_add(y, 2, ids({4, 0, 6}, 71, 6, d), y)};  // an empty index: x itself
        },
        0, 0);
  }
  auto sums = [&] {  // fresh tensors: computed again, not found
    const Device d = Device::kCUDA;
    return scatter_add(Data({1000}, 68, DType::kF32, d), 0, ids({100000}, 69, 1000, d),
                       Data({100000}, 70, DType::kF32, d))
        .to_vector<float>();
  };
  const std::vector<float> first = sums();
  for (int run = 0; run < 3; ++run) EXPECT_EQ(sums(), first);
  auto message = [](Device d) {
    const Tensor bad = from_vector(std::vector<int64_t>{2, 9, 1, -1, 9}, {5}, DType::kI64, d);
    try {
      realize({scatter_add(zeros({4}, DType::kF32, d), 0, bad, ones({5}, DType::kF32, d))});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(Device::kCPU), "no error");
  EXPECT_EQ(message(Device::kCUDA), message(Device::kCPU));
}

// Lines long enough to chain their tiles across blocks (one line, or a few: more than one
// group of 32 tiles, the last tile ragged), sums and products, floats and integers, tiles in
// registers (a prologue, or lengths not a multiple of 4) and staged in shared memory (an
// input read in place, 2, 4 and 8-byte values); and the same bits from run to run (a fixed
// order, whichever block finishes first).
TEST_F(GpuTest, ChainedScans) {
  // Lengths not a multiple of 4 (scalar loads and stores) and multiples of 4 (vectors).
  constexpr int64_t kLong = 4096 * 300 + 77, kLonger = 4096 * 513 + 5, kWhole = 4096 * 257 + 12;
  for (DType dt : {DType::kF32, DType::kF64, DType::kBF16}) {
    Compare([dt](Device d) {
      const Tensor x = Data({2, kLong}, 51, dt, d);
      const Tensor y = Data({kLonger}, 52, dt, d, 0.99999f, 1.00001f);
      const Tensor z = Data({3, kWhole}, 55, dt, d);
      return std::vector<Tensor>{cumsum(x, 1), cumsum(x * 2.0 + 1.0, -1), cumprod(y, 0),
                                 cumsum(z, 1)};
    });
  }
  Compare([](Device d) {
    const Tensor i = cast(floor(Data({kLonger}, 53, DType::kF32, d, -50, 50)), DType::kI32);
    const Tensor w = cast(floor(Data({kWhole}, 56, DType::kF32, d, -50, 50)), DType::kI64);
    const Tensor v = cast(floor(Data({2, kWhole}, 57, DType::kF32, d, -50, 50)), DType::kI32);
    return std::vector<Tensor>{cumsum(i, 0), cumsum(gt(i, 0.0), 0), cumsum(w, 0), cumsum(v, 1)};
  });
  for (DType dt : {DType::kF64, DType::kF32}) {
    const Tensor x = Data({dt == DType::kF64 ? kLonger : 4 * kWhole}, 54, dt, Device::kCUDA);
    const std::vector<double> first = cumsum(x, 0).to_vector<double>();
    for (int run = 0; run < 3; ++run) EXPECT_EQ(cumsum(x, 0).to_vector<double>(), first);
  }
}

}  // namespace
}  // namespace tessel
