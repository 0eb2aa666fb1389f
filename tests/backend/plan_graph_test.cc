// PlanGraph's choice between launching one by one, capturing and replaying, against a driver
// that records the calls (no GPU: the choice is host logic).
#include "backend/plan_graph.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "core/stats.h"
#include "gtest/gtest.h"

namespace tessel::backend {
namespace {

std::vector<std::string> calls;
const CUstream kStream = reinterpret_cast<CUstream>(0x100);
const CUstream kCaptureStream = reinterpret_cast<CUstream>(0x200);
const CUstream kUncapturable = reinterpret_cast<CUstream>(0x300);
bool fail_launches = false, fail_end = false;

CUresult Launch(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                CUstream, void**, void**) {
  calls.push_back("launch");
  return fail_launches ? CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES : CUDA_SUCCESS;
}
// Records whether the launch lets the kernel start before the previous one ends.
CUresult LaunchEx(const CUlaunchConfig* config, CUfunction, void**, void**) {
  const bool overlaps =
      config->numAttrs == 1 &&
      config->attrs[0].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
      config->attrs[0].value.programmaticStreamSerializationAllowed == 1;
  calls.push_back(overlaps ? "launch overlapping" : "launch ex");
  return CUDA_SUCCESS;
}
CUresult BeginCapture(CUstream stream, CUstreamCaptureMode) {
  if (stream == kUncapturable) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  calls.push_back("begin");
  return CUDA_SUCCESS;
}
CUresult EndCapture(CUstream, CUgraph* graph) {
  calls.push_back("end");
  if (fail_end) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  *graph = reinterpret_cast<CUgraph>(0x1);
  return CUDA_SUCCESS;
}
CUresult Instantiate(CUgraphExec* exec, CUgraph, unsigned long long) {
  calls.push_back("instantiate");
  *exec = reinterpret_cast<CUgraphExec>(0x2);
  return CUDA_SUCCESS;
}
CUresult GraphLaunch(CUgraphExec, CUstream) {
  calls.push_back("replay");
  return CUDA_SUCCESS;
}
CUresult ExecDestroy(CUgraphExec) {
  calls.push_back("destroy");
  return CUDA_SUCCESS;
}
CUresult GraphDestroy(CUgraph) { return CUDA_SUCCESS; }

runtime::Driver RecordingDriver() {
  runtime::Driver d;
  d.cuLaunchKernel = &Launch;
  d.cuLaunchKernelEx = &LaunchEx;
  d.cuStreamBeginCapture = &BeginCapture;
  d.cuStreamEndCapture = &EndCapture;
  d.cuGraphInstantiateWithFlags = &Instantiate;
  d.cuGraphLaunch = &GraphLaunch;
  d.cuGraphExecDestroy = &ExecDestroy;
  d.cuGraphDestroy = &GraphDestroy;
  return d;
}

// Two kernels of one plan: a buffer and a scalar each.
class TwoLaunches {
 public:
  // `second_waits`: the second kernel waits for the first itself (griddepcontrol.wait).
  TwoLaunches(CUdeviceptr buffer, uint64_t scalar, bool second_waits = false) {
    for (LaunchParams& p : params_) {
      p.buffers.push_back(buffer);
      p.scalars.push_back(scalar);
      p.Seal();
    }
    for (int i = 0; i < 2; ++i) {
      launches_.push_back({reinterpret_cast<CUfunction>(0x10 + i),
                           {4, 1, 1},
                           256,
                           0,
                           &params_[i],
                           &name_,
                           &name_,
                           second_waits && i == 1});
    }
  }
  absl::Span<const PendingLaunch> launches() const { return launches_; }

 private:
  LaunchParams params_[2];
  std::vector<PendingLaunch> launches_;
  std::string name_ = "k";
};

std::vector<std::string> Issue(PlanGraph& graph, const runtime::Driver& driver,
                               const TwoLaunches& l, CUstream capture = kCaptureStream) {
  calls.clear();
  EXPECT_TRUE(IssueLaunches(l.launches(), graph, &driver, kStream, capture).ok());
  return calls;
}

using Calls = std::vector<std::string>;
const Calls kCaptured = {"begin", "launch", "launch", "end", "instantiate", "replay"};

TEST(PlanGraphTest, CapturesWhereLaunchesRepeatAndReplaysThem) {
  const runtime::Driver driver = RecordingDriver();
  PlanGraph graph;
  const int64_t captured = GetStats().graphs_captured, replays = GetStats().graph_replays;
  const int64_t launched = GetStats().kernels_launched;
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7)), Calls({"launch", "launch"}));
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7)), kCaptured);
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7)), Calls({"replay"}));
  EXPECT_EQ(GetStats().graphs_captured - captured, 1);
  EXPECT_EQ(GetStats().graph_replays - replays, 2);      // each graph launch, the first included
  EXPECT_EQ(GetStats().kernels_launched - launched, 6);  // captured launches do not count
  // A changed value (or buffer) is a different launch: issued one by one, captured again
  // once it repeats.
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 8)), Calls({"launch", "launch"}));
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x2000, 8)), Calls({"launch", "launch"}));
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x2000, 8)), kCaptured);
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x2000, 8)), Calls({"replay"}));
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7)), Calls({"replay"}));  // still kept
}

// Buffers handed round in a cycle (A, B, A, B) get a graph each.
TEST(PlanGraphTest, CapturesLaunchesThatComeRoundInACycle) {
  const runtime::Driver driver = RecordingDriver();
  PlanGraph graph;
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7)), Calls({"launch", "launch"}));
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x2000, 7)), Calls({"launch", "launch"}));
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7)), kCaptured);
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x2000, 7)), kCaptured);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7)), Calls({"replay"}));
    EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x2000, 7)), Calls({"replay"}));
  }
}

// A plan keeps a few graphs: the least recently replayed goes first.
TEST(PlanGraphTest, KeepsAFewGraphs) {
  const runtime::Driver driver = RecordingDriver();
  PlanGraph graph;
  for (uint64_t v = 1; v <= 4; ++v) {
    Issue(graph, driver, TwoLaunches(0x1000, v));
    EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, v)), kCaptured);
  }
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 1)), Calls({"replay"}));
  Issue(graph, driver, TwoLaunches(0x1000, 5));
  Calls evicting = kCaptured;
  evicting.insert(evicting.begin() + 5, "destroy");  // value 2's graph, after instantiating 5's
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 5)), evicting);
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 1)), Calls({"replay"}));
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 2)), Calls({"launch", "launch"}));
}

TEST(PlanGraphTest, LaunchesOneByOneWhereNoGraphCanServe) {
  const runtime::Driver driver = RecordingDriver();
  {
    PlanGraph graph;  // no capture stream
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7), nullptr), Calls({"launch", "launch"}));
    }
  }
  {
    PlanGraph graph;  // a stream that cannot be captured: tried once, never again
    EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7), kUncapturable),
              Calls({"launch", "launch"}));
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7), kUncapturable),
                Calls({"launch", "launch"}));
    }
  }
  {
    PlanGraph graph;  // a capture the driver invalidates: the launches run one by one
    fail_end = true;
    Issue(graph, driver, TwoLaunches(0x1000, 7));
    EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7)),
              Calls({"begin", "launch", "launch", "end", "launch", "launch"}));
    fail_end = false;
    EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7)), Calls({"launch", "launch"}));
  }
  {
    PlanGraph graph;  // switched off
    setenv("TESSEL_CUDA_GRAPHS", "0", 1);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7)), Calls({"launch", "launch"}));
    }
    unsetenv("TESSEL_CUDA_GRAPHS");
  }
  {
    PlanGraph graph;  // one launch: a graph would save nothing
    TwoLaunches two(0x1000, 7);
    for (int i = 0; i < 3; ++i) {
      calls.clear();
      ASSERT_TRUE(
          IssueLaunches(two.launches().subspan(0, 1), graph, &driver, kStream, kCaptureStream)
              .ok());
      EXPECT_EQ(calls, Calls({"launch"}));
    }
  }
}

// A kernel that waits for its predecessor itself may start before it ends: launched with
// programmatic stream serialization, captured so too; not with TESSEL_PDL=0 or a driver
// without cuLaunchKernelEx.
TEST(PlanGraphTest, KernelsThatWaitForTheirPredecessorMayOverlapIt) {
  runtime::Driver driver = RecordingDriver();
  const Calls overlapping = {"launch", "launch overlapping"};
  PlanGraph graph;
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7, true)), overlapping);
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x1000, 7, true)),
            Calls({"begin", "launch", "launch overlapping", "end", "instantiate", "replay"}));
  setenv("TESSEL_PDL", "0", 1);
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x2000, 7, true)), Calls({"launch", "launch"}));
  unsetenv("TESSEL_PDL");
  driver.cuLaunchKernelEx = nullptr;
  EXPECT_EQ(Issue(graph, driver, TwoLaunches(0x3000, 7, true)), Calls({"launch", "launch"}));
}

// A launch that fails while captured fails the execution, and counts nothing.
TEST(PlanGraphTest, AFailedCaptureReportsTheLaunchError) {
  const runtime::Driver driver = RecordingDriver();
  PlanGraph graph;
  TwoLaunches l(0x1000, 7);
  ASSERT_TRUE(IssueLaunches(l.launches(), graph, &driver, kStream, kCaptureStream).ok());
  const int64_t launched = GetStats().kernels_launched;
  fail_launches = true;
  calls.clear();
  const absl::Status s = IssueLaunches(l.launches(), graph, &driver, kStream, kCaptureStream);
  fail_launches = false;
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(calls, Calls({"begin", "launch", "end"}));
  EXPECT_EQ(GetStats().kernels_launched, launched);
}

}  // namespace
}  // namespace tessel::backend
