#include "backend/plan_graph.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "backend/environment.h"
#include "core/stats.h"
#include "core/status_macros.h"

namespace tessel::backend {
namespace {

// The fewest launches a plan replays as a graph: a graph launch costs the driver about what
// one kernel launch does, so one launch gains nothing from it.
constexpr size_t kMinGraphLaunches = 2;
// Graphs a plan keeps, and executions it remembers to capture from: a loop's buffers cycle
// through a few addresses at most.
constexpr size_t kGraphs = 4, kRecent = 4;

template <typename T>
void AppendBytes(const T& value, std::vector<uint64_t>& words) {
  static_assert(sizeof(T) % 8 == 0, "whole words");
  uint64_t w[sizeof(T) / 8];
  std::memcpy(w, &value, sizeof(T));
  words.insert(words.end(), w, w + sizeof(T) / 8);
}

// Every byte that tells one launch from another.
std::vector<uint64_t> WordsOf(absl::Span<const PendingLaunch> launches) {
  std::vector<uint64_t> words;
  words.reserve(launches.size() * 16);
  for (const PendingLaunch& l : launches) {
    words.push_back(reinterpret_cast<uint64_t>(l.function));
    for (int64_t g : l.grid) words.push_back(static_cast<uint64_t>(g));
    words.push_back(static_cast<uint64_t>(l.block));
    words.push_back(static_cast<uint64_t>(l.shared_bytes));
    l.params->AppendWords(words);
  }
  return words;
}

absl::Status IssueEach(absl::Span<const PendingLaunch> launches, const runtime::Driver* driver,
                       CUstream stream) {
  for (const PendingLaunch& l : launches) {
    absl::Status issued = IssueLaunch(l, driver, stream);
    if (!issued.ok()) return issued;
  }
  return absl::OkStatus();
}

// Through cuLaunchKernelEx where the kernel may start before the previous one on the stream
// ends (it waits for it itself), where the driver has it.
CUresult LaunchKernel(const PendingLaunch& launch, const runtime::Driver* driver, CUstream stream) {
  const std::array<int64_t, 3>& grid = launch.grid;
  void** params = const_cast<void**>(launch.params->pointers.data());
  if (!launch.waits_for_predecessor || driver->cuLaunchKernelEx == nullptr ||
      !ProgrammaticLaunchesEnabled()) {
    return driver->cuLaunchKernel(launch.function, grid[0], grid[1], grid[2], launch.block, 1, 1,
                                  launch.shared_bytes, stream, params, nullptr);
  }
  CUlaunchAttribute overlap;
  overlap.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  overlap.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config{};
  config.gridDimX = static_cast<unsigned>(grid[0]);
  config.gridDimY = static_cast<unsigned>(grid[1]);
  config.gridDimZ = static_cast<unsigned>(grid[2]);
  config.blockDimX = static_cast<unsigned>(launch.block);
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = static_cast<unsigned>(launch.shared_bytes);
  config.hStream = stream;
  config.attrs = &overlap;
  config.numAttrs = 1;
  return driver->cuLaunchKernelEx(&config, launch.function, params, nullptr);
}

}  // namespace

void LaunchParams::Seal() {
  pointers.clear();
  for (CUdeviceptr& b : buffers) pointers.push_back(&b);
  for (CUtensorMap& m : maps) pointers.push_back(&m);
  for (uint64_t& s : scalars) pointers.push_back(&s);
  if (takes_rows) pointers.push_back(&rows);
}

void LaunchParams::AppendWords(std::vector<uint64_t>& words) const {
  words.insert(words.end(), buffers.begin(), buffers.end());
  for (const CUtensorMap& m : maps) AppendBytes(m, words);
  words.insert(words.end(), scalars.begin(), scalars.end());
  if (takes_rows) words.push_back(static_cast<uint64_t>(rows));
}

absl::Status IssueLaunch(const PendingLaunch& launch, const runtime::Driver* driver,
                         CUstream stream) {
  const std::array<int64_t, 3>& grid = launch.grid;
  // The messages are built only on failure: this is the launch path.
  const CUresult launched = LaunchKernel(launch, driver, stream);
  if (launched != CUDA_SUCCESS) {
    return runtime::CheckCu(launched,
                            absl::StrCat("launching ", *launch.name, ", ", *launch.plan_line));
  }
  if (SyncEnabled()) {
    const CUresult ran = driver->cuStreamSynchronize(stream);
    if (ran != CUDA_SUCCESS) {
      return runtime::CheckCu(ran, absl::StrCat("running ", *launch.name, ", ", *launch.plan_line));
    }
  }
  ++GetStats().kernels_launched;
  if (LogEnabled()) {
    std::fprintf(stderr, "tessel: launch %s grid (%lld, %lld, %lld) x %d\n", launch.name->c_str(),
                 static_cast<long long>(grid[0]), static_cast<long long>(grid[1]),
                 static_cast<long long>(grid[2]), launch.block);
  }
  return absl::OkStatus();
}

PlanGraph::~PlanGraph() {
  for (const Captured& g : graphs_) driver_->cuGraphExecDestroy(g.exec);
}

absl::Status PlanGraph::Run(absl::Span<const PendingLaunch> launches, const runtime::Driver* driver,
                            CUstream stream, CUstream capture) {
  if (unusable_) return IssueEach(launches, driver, stream);
  std::vector<uint64_t> words = WordsOf(launches);
  auto captured = absl::c_find_if(graphs_, [&](const Captured& g) { return g.words == words; });
  if (captured == graphs_.end()) {
    auto seen = absl::c_find(recent_, words);
    if (seen == recent_.end()) {
      if (recent_.size() == kRecent) recent_.erase(recent_.begin());
      recent_.push_back(std::move(words));
      return IssueEach(launches, driver, stream);
    }
    recent_.erase(seen);
    TESSEL_ASSIGN_OR_RETURN(CUgraphExec exec, Capture(launches, driver, capture));
    if (exec == nullptr) return IssueEach(launches, driver, stream);
    if (graphs_.size() == kGraphs) {
      driver_->cuGraphExecDestroy(graphs_.front().exec);
      graphs_.erase(graphs_.begin());
    }
    driver_ = driver;
    graphs_.push_back({std::move(words), exec});
    captured = graphs_.end() - 1;
  }
  std::rotate(captured, captured + 1, graphs_.end());  // most recently replayed last
  TESSEL_RETURN_IF_ERROR(
      runtime::CheckCu(driver->cuGraphLaunch(graphs_.back().exec, stream),
                       absl::StrCat("replaying ", launches.size(), " launches as a CUDA graph")));
  GetStats().kernels_launched += static_cast<int64_t>(launches.size());
  ++GetStats().graph_replays;
  return absl::OkStatus();
}

absl::StatusOr<CUgraphExec> PlanGraph::Capture(absl::Span<const PendingLaunch> launches,
                                               const runtime::Driver* driver, CUstream capture) {
  if (driver->cuStreamBeginCapture(capture, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) != CUDA_SUCCESS) {
    unusable_ = true;
    return nullptr;
  }
  // Captured launches do not run: whatever IssueEach counted, the replay counts.
  const int64_t launched = GetStats().kernels_launched;
  absl::Status issued = IssueEach(launches, driver, capture);
  GetStats().kernels_launched -= GetStats().kernels_launched - launched;
  CUgraph graph = nullptr;
  const CUresult ended = driver->cuStreamEndCapture(capture, &graph);
  if (!issued.ok()) {
    if (graph != nullptr) driver->cuGraphDestroy(graph);
    return issued;
  }
  if (ended != CUDA_SUCCESS || graph == nullptr) {
    unusable_ = true;
    return nullptr;
  }
  CUgraphExec exec = nullptr;
  const CUresult made = driver->cuGraphInstantiateWithFlags(&exec, graph, 0);
  driver->cuGraphDestroy(graph);
  if (made != CUDA_SUCCESS) {
    unusable_ = true;
    return nullptr;
  }
  ++GetStats().graphs_captured;
  return exec;
}

absl::Status IssueLaunches(absl::Span<const PendingLaunch> launches, PlanGraph& graph,
                           const runtime::Driver* driver, CUstream stream, CUstream capture) {
  if (launches.size() < kMinGraphLaunches || capture == nullptr || SyncEnabled() || LogEnabled() ||
      !CudaGraphsEnabled()) {
    return IssueEach(launches, driver, stream);
  }
  return graph.Run(launches, driver, stream, capture);
}

}  // namespace tessel::backend
