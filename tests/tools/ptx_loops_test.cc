#include "tools/ptx_loops.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"

namespace tessel::tools {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The shape of NVRTC 13.0's PTX for the scan of fuzz seed 42008079: the loop over a line,
// unrolled by 2, with its exit test gone.
constexpr char kScanWithoutExit[] = R"(
.visible .entry S_rand_cumsum_8b963009(
	.param .u64 S_rand_cumsum_8b963009_param_0,
	.param .u64 S_rand_cumsum_8b963009_param_1
)
.maxntid 256, 1, 1
{
	.reg .pred 	%p<2>;
	.reg .b64 	%rd<21>;
	ld.param.u64 	%rd10, [S_rand_cumsum_8b963009_param_0];
	setp.gt.s32 	%p1, %r1, 254;
	@%p1 bra 	$L__BB0_3;
	bra.uni 	$L__BB0_1;

$L__BB0_3:
	ret;

$L__BB0_1:
	mov.u32 	%r29, 0;
$L__BB0_2:
	// a comment with bra $L__BB0_3; in it
	st.global.f32 	[%rd18+1020], %f6;
	add.s64 	%rd18, %rd18, 2040;
	bra.uni 	$L__BB0_2;

}
)";

TEST(PtxLoopsTest, FindsTheLoopNoPathLeaves) {
  EXPECT_THAT(FunctionsWithEndlessLoops(kScanWithoutExit), ElementsAre("S_rand_cumsum_8b963009"));
}

TEST(PtxLoopsTest, LoopsWithAnExitPass) {
  std::string with_exit = kScanWithoutExit;
  const std::string back = "\tbra.uni \t$L__BB0_2;";
  with_exit.replace(with_exit.find(back), back.size(),
                    "\tsetp.ne.s32 %p2, %r109, 31;\n\t@%p2 bra \t$L__BB0_2;");
  EXPECT_THAT(FunctionsWithEndlessLoops(with_exit), IsEmpty());
  // A spin on a barrier leaves when its predicate says so; inline asm brings braces and
  // labels of its own.
  EXPECT_THAT(FunctionsWithEndlessLoops(R"(
.visible .entry wait(.param .u64 p)
{
	.reg .pred %p<3>;
$L__BB0_1:
	{
	.reg .pred P1;
	LAB_WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 P1, [%r1], %r2;
	@P1 bra DONE;
	bra LAB_WAIT;
	DONE:
	}
	st.shared.v2.f32 [%r3], {%f1, %f2};
	@%p1 bra $L__BB0_1;
	ret;
}
)"),
              IsEmpty());
}

// ret.uni leaves; a loop nothing reaches is no loop the kernel runs.
TEST(PtxLoopsTest, NamesOnlyTheFunctionsThatLoopForever) {
  const std::string two = std::string(R"(
.func (.param .b32 r) helper(.param .b32 a)
{
$L__BB1_1:
	@%p1 bra $L__BB1_2;
	bra.uni $L__BB1_1;
$L__BB1_2:
	ret.uni;
$L__BB1_3:
	bra.uni $L__BB1_3;
}
.extern .func declared(.param .b32 a);
)") + kScanWithoutExit;
  EXPECT_THAT(FunctionsWithEndlessLoops(two), ElementsAre("S_rand_cumsum_8b963009"));
}

// On NVRTC's own output: a loop the source never leaves is found, an ordinary one is not.
TEST(PtxLoopsTest, ReadsNvrtcOutput) {
  if (!runtime::NvrtcVersion().ok()) GTEST_SKIP() << "NVRTC is not installed";
  const char* source = R"(
extern "C" __global__ void counted(float* out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = i;
}
extern "C" __global__ void endless(float* out) {
  for (int i = threadIdx.x;; i += blockDim.x) out[i] = i;
}
)";
  for (const Target& target : {Target{8, 0, false}, Target{9, 0, true}}) {
    absl::StatusOr<runtime::CompileOutput> out =
        runtime::CompileCuda({"loops", source, {}, 0}, target);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_THAT(FunctionsWithEndlessLoops(out->ptx), ElementsAre("endless")) << out->ptx;
  }
}

}  // namespace
}  // namespace tessel::tools
