// Devices, streams and memory on the GPU: work on two streams overlaps and stays correct
// across streams, the allocator's stats and limit, every device.
#include <chrono>

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/gpu/gpu_compare.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

using testing::Compare;
using testing::Data;
using testing::ExpectError;
using testing::GpuTest;

double Seconds(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// An exact f32 GEMM of a 128 x 128 output and a long K keeps a few SMs busy computing for
// milliseconds: two on two streams take the time of one. (Not bf16: the tensor-core kernel
// deals such a K out to 16 SMs in slices, and two of those measured 6.9 ms together against
// 7.7 apart on the H100.)
TEST_F(GpuTest, WorkOnTwoStreamsOverlaps) {
  const int64_t k = int64_t{1} << 16;
  auto make = [&](uint64_t seed) {
    return matmul(randn({128, k}, seed, DType::kF32), randn({k, 128}, seed + 1, DType::kF32));
  };
  const Stream s1 = Stream::create(), s2 = Stream::create();
  auto run = [&](bool first, bool second, int step) {
    std::vector<Tensor> keep;
    if (first) {
      StreamGuard g(s1);
      keep.push_back(make(10 * step));
      realize({keep.back()});
    }
    if (second) {
      StreamGuard g(s2);
      keep.push_back(make(10 * step + 5));
      realize({keep.back()});
    }
    synchronize();
  };
  run(true, true, 0);  // compile, allocate
  const double one = Seconds([&] { run(true, false, 1); });
  const double other = Seconds([&] { run(false, true, 2); });
  const double both = Seconds([&] { run(true, true, 3); });
  RecordProperty("one_ms", static_cast<int>(one * 1e3));
  RecordProperty("both_ms", static_cast<int>(both * 1e3));
  EXPECT_LT(both, 0.75 * (one + other)) << one << " s + " << other << " s, together " << both;
}

// A value made on one stream and read on another is read after it is written; temporaries
// freed on one stream are not handed to the other while it may still use them.
TEST_F(GpuTest, StreamsOrderWorkTheyShare) {
  const Stream s1 = Stream::create(), s2 = Stream::create();
  for (int step = 0; step < 20; ++step) {
    Tensor x, y;
    {
      StreamGuard g(s1);
      x = exp(sin(Data({1 << 22}, step, DType::kF32, Device::kCUDA)));
      realize({x});
    }
    {
      StreamGuard g(s2);
      y = x * 2.0 + cos(x);
      realize({y});
    }
    const Tensor cpu_x = exp(sin(Data({1 << 22}, step, DType::kF32, Device::kCPU)));
    const std::vector<double> want = (cpu_x * 2.0 + cos(cpu_x)).to_vector<double>();
    testing::ExpectClose(y.to_vector<float>(), want, 1e-5, 1e-5);
  }
}

TEST_F(GpuTest, MemoryStatsAndLimit) {
  synchronize();
  empty_cache();
  const MemoryStats before = memory_stats();
  EXPECT_EQ(before.reserved, before.in_use);
  Tensor kept = Data({1 << 20}, 1, DType::kF32, Device::kCUDA) * 2.0;
  realize({kept});
  EXPECT_GE(memory_stats().in_use - before.in_use, 4 << 20);
  set_memory_limit(memory_stats().in_use + (1 << 20));
  const Tensor big = kept + 1.0;  // needs 4 MiB more
  ExpectError([&] { realize({big}); }, {"memory limit", "in use"});
  set_memory_limit(0);
  testing::ExpectClose(
      big.to_vector<float>(),
      (Data({1 << 20}, 1, DType::kF32, Device::kCPU) * 2.0 + 1.0).to_vector<double>(), 1e-6, 1e-6);
  const int64_t peak = memory_stats().peak_in_use;
  EXPECT_GE(peak, memory_stats().in_use);
}

// A step past the memory limit is undone: the parameter keeps its value and its buffer, and
// the same step runs in place once the limit allows it.
TEST_F(GpuTest, AStepPastTheMemoryLimitIsUndone) {
  Tensor p = Data({1 << 20}, 1, DType::kF32, Device::kCUDA);
  realize({p});
  const void* before = data_ptr(p);
  const std::vector<float> old = p.to_vector<float>();
  const Tensor g = Data({1 << 20}, 2, DType::kF32, Device::kCUDA);
  realize({g});
  set_memory_limit(memory_stats().in_use + (1 << 20));
  assign(p, p - g * 0.5);  // a temporary of 4 MiB
  ExpectError([&] { realize({p}); }, {"memory limit", "in use"});
  set_memory_limit(0);
  EXPECT_EQ(p.to_vector<float>(), old);
  assign(p, p - g * 0.5);
  realize({p});
  EXPECT_EQ(data_ptr(p), before);
  const std::vector<float> gv = g.to_vector<float>();
  std::vector<float> want(old.size());
  for (size_t i = 0; i < old.size(); ++i) want[i] = old[i] - gv[i] * 0.5f;
  EXPECT_EQ(p.to_vector<float>(), want);
}

TEST_F(GpuTest, EveryDeviceComputesAndDevicesDoNotMix) {
  const int previous = current_device();
  for (int d = 0; d < device_count(); ++d) {
    SCOPED_TRACE(::testing::Message() << "device " << d);
    set_device(d);
    Compare([](Device dev) {
      const Tensor x = Data({257, 33}, 3, DType::kF32, dev);
      return std::vector<Tensor>{softmax(x) * 3.0, sum(x, {0})};
    });
    EXPECT_EQ(device_index(full({1}, 1.0, DType::kF32, Device::kCUDA)), d);
  }
  if (device_count() > 1) {
    set_device(0);
    const Tensor a = full({2}, 1.0, DType::kF32, Device::kCUDA);
    set_device(1);
    const Tensor b = full({2}, 1.0, DType::kF32, Device::kCUDA);
    ExpectError([&] { a + b; }, {"different devices", "cuda:0", "cuda:1"});
  }
  set_device(previous);
}

TEST_F(GpuTest, StreamsHaveCudaHandles) {
  EXPECT_NE(Stream::current().cuda_stream(), nullptr);
  EXPECT_NE(Stream::create().cuda_stream(), Stream::current().cuda_stream());
}

}  // namespace
}  // namespace tessel
