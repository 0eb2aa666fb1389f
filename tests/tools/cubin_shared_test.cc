// The fake driver's reading of a kernel's static shared memory from its cubin, against the
// sizes the kernels declare (the real driver's attribute: bench/labs/static_shared_probe.cu).
#include "tools/fake_cuda/cubin_shared.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"

namespace fake_cuda {
namespace {

using ::testing::Pair;
using ::testing::UnorderedElementsAre;

constexpr char kKernels[] = R"(
extern "C" __global__ void none(float* p) { p[threadIdx.x] *= 2; }
extern "C" __global__ void dynamic_only(float* p) {
  extern __shared__ float d[];
  d[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = d[31 - threadIdx.x];
}
template <int N>
__device__ void held(float* p) {
  __shared__ volatile float s[N];
  s[threadIdx.x * 7 % N] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[threadIdx.x % N];
}
extern "C" __global__ void small(float* p) { held<4>(p); }
extern "C" __global__ void large(float* p) { held<10000>(p); }
)";

std::map<std::string, int> SharedOf(const tessel::Target& target) {
  auto compiled = tessel::runtime::CompileCuda({"kernels", kKernels, {}, 0}, target);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  return compiled.ok() ? StaticSharedBytes(compiled->cubin.data()) : std::map<std::string, int>{};
}

TEST(CubinSharedTest, Sm90SectionsLessTheDriversReservedKilobyte) {
  EXPECT_THAT(SharedOf({9, 0, true}),
              UnorderedElementsAre(Pair("small", 16), Pair("large", 40000)));
}

TEST(CubinSharedTest, Sm80SectionsAsDeclared) {
  EXPECT_THAT(SharedOf({8, 0, false}),
              UnorderedElementsAre(Pair("small", 16), Pair("large", 40000)));
}

TEST(CubinSharedTest, NotACubin) {
  EXPECT_THAT(StaticSharedBytes(".version 8.0\n.target sm_90a\n"), ::testing::IsEmpty());
}

}  // namespace
}  // namespace fake_cuda
