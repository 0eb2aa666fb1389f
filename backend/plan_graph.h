// The launches of one execution of a plan, and their replay as a CUDA graph.
//
// ExecutePlan allocates every buffer of a plan first and collects its launches; they are then
// issued one by one, or, where a plan of several launches repeats with the very same launches
// (functions, grids and every argument byte: the same buffers, values and extents, as a
// loop's steady state gives with the caching allocator), captured once into a CUDA graph and
// replayed: one driver call in place of one per launch. Deferring the launches after the
// allocations is safe because a freed block is reused only on its own stream (device_memory.h),
// where the launches keep their order, and is not returned to the driver until they are
// queued (HeldFrees). Captures run on the device's capture stream, which nothing else uses:
// another thread's copy on the plan's stream cannot land in the graph.
#ifndef TESSEL_BACKEND_PLAN_GRAPH_H_
#define TESSEL_BACKEND_PLAN_GRAPH_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/cuda_driver.h"

namespace tessel::backend {

// One kernel's parameters, held in place until its launches are issued (the pointers point
// into this object: it is never moved).
struct LaunchParams {
  absl::InlinedVector<CUdeviceptr, 8> buffers;
  absl::InlinedVector<CUtensorMap, 3> maps;
  absl::InlinedVector<uint64_t, 8> scalars;
  long long rows = 0;
  bool takes_rows = false;
  absl::InlinedVector<void*, 16> pointers;  // cuLaunchKernel's kernelParams

  LaunchParams() = default;
  LaunchParams(const LaunchParams&) = delete;
  LaunchParams& operator=(const LaunchParams&) = delete;
  // Points `pointers` at the values above, in the kernels' parameter order.
  void Seal();
  // The values' bytes, as words, for comparing two executions.
  void AppendWords(std::vector<uint64_t>& words) const;
};

// One launch of a plan's kernel entry (the names for messages).
struct PendingLaunch {
  CUfunction function;
  std::array<int64_t, 3> grid;
  int block;
  int64_t shared_bytes;
  const LaunchParams* params;
  const std::string* name;       // the entry's
  const std::string* plan_line;  // the kernel's place in the plan
  // The kernel waits for the previous one on the stream itself (griddepcontrol.wait): it is
  // launched with programmatic stream serialization, to start while that one ends.
  bool waits_for_predecessor;
};

// Issues `launch` on `stream` (with TESSEL_SYNC, waits for it; with TESSEL_LOG, says so).
absl::Status IssueLaunch(const PendingLaunch& launch, const runtime::Driver* driver,
                         CUstream stream);

// A plan's captured graph. Not thread-safe: realize runs one program at a time.
class PlanGraph {
 public:
  PlanGraph() = default;
  PlanGraph(const PlanGraph&) = delete;
  PlanGraph& operator=(const PlanGraph&) = delete;
  ~PlanGraph();

  // Issues the launches on `stream`: replayed where they repeat a captured graph's, captured
  // (on `capture`, a stream nothing else uses) where they repeat one of the last few
  // executions' (a caching allocator may hand a loop's buffers round in a short cycle: A, B,
  // A, B), else one by one.
  absl::Status Run(absl::Span<const PendingLaunch> launches, const runtime::Driver* driver,
                   CUstream stream, CUstream capture);

 private:
  // The graph of `launches`, or null where they cannot be captured.
  absl::StatusOr<CUgraphExec> Capture(absl::Span<const PendingLaunch> launches,
                                      const runtime::Driver* driver, CUstream capture);

  struct Captured {
    std::vector<uint64_t> words;  // its launches, as words
    CUgraphExec exec;
  };
  std::vector<Captured> graphs_;               // least recently replayed first
  std::vector<std::vector<uint64_t>> recent_;  // executions issued one by one, oldest first
  const runtime::Driver* driver_ = nullptr;    // the graphs'
  bool unusable_ = false;                      // a capture failed: never again for this plan
};

// Issues a plan's launches on `stream`: through `graph` where it has several, graphs are
// enabled and there is a `capture` stream.
absl::Status IssueLaunches(absl::Span<const PendingLaunch> launches, PlanGraph& graph,
                           const runtime::Driver* driver, CUstream stream, CUstream capture);

}  // namespace tessel::backend

#endif  // TESSEL_BACKEND_PLAN_GRAPH_H_
