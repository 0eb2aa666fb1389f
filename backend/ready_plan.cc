#include "backend/ready_plan.h"

#include <chrono>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend/compile.h"
#include "backend/dump.h"
#include "backend/environment.h"
#include "codegen/generate.h"
#include "core/stats.h"
#include "core/status_macros.h"
#include "fusion/planner.h"
#include "runtime/kernel_cache.h"

namespace tessel::backend {
namespace {

absl::StatusOr<std::shared_ptr<LoadedModule>> LoadModule(const codegen::KernelSource& ks,
                                                         const std::string& dump,
                                                         runtime::DeviceContext& device,
                                                         ModuleCache& modules) {
  if (auto* hit = modules.Find(ks.source)) return *hit;
  const auto start = std::chrono::steady_clock::now();
  const runtime::CacheStats before = runtime::GlobalKernelCache().stats();
  auto compiled = CompileCached(ks, device.target());
  if (!compiled.ok()) {
    const std::string path =
        WriteDumpFile(dump.empty() ? "/tmp/tessel-failed" : dump, ks.name + ".cu", ks.source);
    return absl::InternalError(absl::StrCat(compiled.status().message(), "\n(source: ", path, ")"));
  }
  if (!dump.empty()) {
    WriteDumpFile(dump, ks.name + ".cu", ks.source);
    WriteDumpFile(dump, ks.name + ".ptx", (*compiled)->ptx);
    WriteDumpFile(dump, ks.name + ".cubin", (*compiled)->cubin);
  }
  CUmodule module;
  TESSEL_RETURN_IF_ERROR(
      runtime::CheckCu(device.driver()->cuModuleLoadData(&module, (*compiled)->cubin.data()),
                       absl::StrCat("loading ", ks.name)));
  if (LogEnabled()) {
    const runtime::CacheStats after = runtime::GlobalKernelCache().stats();
    const char* from = after.compiles > before.compiles     ? "compiled with NVRTC"
                       : after.disk_hits > before.disk_hits ? "loaded from the disk cache"
                                                            : "from the memory cache";
    std::fprintf(stderr, "tessel: %s %s for %s (device %d) in %.1f ms\n", ks.name.c_str(), from,
                 device.target().Name().c_str(), device.index(), MillisecondsSince(start));
  }
  ++GetStats().modules_loaded;
  return modules.Put(ks.source, std::make_shared<LoadedModule>(&device, module));
}

// Clusters past the portable 8 (long columns: codegen/column_normalization.cc) allowed for
// entry `l`, or refused with the way out where this device runs none of them.
absl::Status AllowLargeClusters(const runtime::Driver* driver, const codegen::Launch& l,
                                CUfunction function) {
  TESSEL_RETURN_IF_ERROR(runtime::CheckCu(
      driver->cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
      absl::StrCat("allowing clusters of ", l.cluster, " blocks for ", l.entry)));
  if (driver->cuOccupancyMaxActiveClusters == nullptr) return absl::OkStatus();
  CUlaunchConfig config = {};
  config.gridDimX = static_cast<unsigned>(l.cluster);
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = static_cast<unsigned>(l.block);
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = static_cast<unsigned>(l.shared_bytes);
  int clusters = 0;
  TESSEL_RETURN_IF_ERROR(
      runtime::CheckCu(driver->cuOccupancyMaxActiveClusters(&clusters, function, &config),
                       absl::StrCat("counting the clusters of ", l.entry)));
  if (clusters > 0) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat(l.entry, " holds long columns in clusters of ", l.cluster,
                   " blocks, which this device does not run; TESSEL_CLUSTERS=8 keeps clusters "
                   "to the portable 8"));
}

// The entry points of `ks` in `r.module`, with the grid each launches.
absl::Status FindEntries(const codegen::KernelSource& ks, runtime::DeviceContext& device,
                         ReadyKernel& r) {
  const runtime::Driver* driver = device.driver();
  for (const codegen::Launch& l : ks.launches) {
    ReadyKernel::Entry e{
        nullptr,  l.grid, l.block, l.shared_bytes, l.entry, l.rows_grid, l.persistent_per_sm,
        l.cluster};
    TESSEL_RETURN_IF_ERROR(LaunchGrid(r, e, 0, device.sm_count()).status());  // fail early
    TESSEL_RETURN_IF_ERROR(
        runtime::CheckCu(driver->cuModuleGetFunction(&e.function, r.module->get(), l.entry.c_str()),
                         absl::StrCat("finding ", l.entry)));
    // Always opted in: a kernel's static shared memory counts against the same default 48 KB,
    // so 40 KB of dynamic beside 10 KB of static fails to launch unless reserved.
    if (l.shared_bytes > 0) {
      TESSEL_RETURN_IF_ERROR(runtime::CheckCu(
          driver->cuFuncSetAttribute(e.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     static_cast<int>(l.shared_bytes)),
          absl::StrCat("reserving ", l.shared_bytes, " bytes of shared memory for ", l.entry)));
    }
    if (l.cluster > 8) TESSEL_RETURN_IF_ERROR(AllowLargeClusters(driver, l, e.function));
    r.entries.push_back(std::move(e));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::array<int64_t, 3>> LaunchGrid(const ReadyKernel& k, const ReadyKernel::Entry& e,
                                                  int64_t rows, int sm_count) {
  std::array<int64_t, 3> grid = e.grid;
  const codegen::RowsGrid& g = e.rows_grid;
  if (rows > 0 && g.mul > 0) grid[0] = (rows * g.mul + g.div - 1) / g.div * g.times;
  if (e.persistent_per_sm > 0) {
    grid[0] = std::min<int64_t>(grid[0], int64_t{sm_count} * e.persistent_per_sm);
    if (PersistentBlocksCap() > 0) grid[0] = std::min(grid[0], PersistentBlocksCap());
  }
  if (grid[0] > 2147483647 || grid[1] > 65535 || grid[2] > 65535) {
    return absl::UnimplementedError(absl::StrCat(
        "tessel: ", e.name, " (", k.plan_line, ") would need a grid of ", grid[0], " x ", grid[1],
        " x ", grid[2], " blocks, past what a GPU launches (2^31 - 1 x 65535 x 65535): ",
        "a problem this large is not supported yet"));
  }
  // The driver refuses a grid of part of a cluster: a planning bug, not the user's.
  if (e.cluster > 1 && grid[0] % e.cluster != 0) {
    return absl::InternalError(absl::StrCat("tessel internal: ", e.name, " (", k.plan_line,
                                            ") would launch ", grid[0], " blocks in clusters of ",
                                            e.cluster));
  }
  return grid;
}

LoadedModule::~LoadedModule() { device_->RetireModule(module_); }

namespace {

// Compiles and loads `sources`, the kernels of `plan`.
absl::StatusOr<ReadyPlan> Load(const Program& program, const FusionPlan& plan,
                               const std::vector<codegen::KernelSource>& sources,
                               const absl::flat_hash_map<const Node*, int>& position,
                               runtime::DeviceContext& device, ModuleCache& modules) {
  TESSEL_ASSIGN_OR_RETURN(const std::string dump, DumpDirectory());
  if (!dump.empty()) DumpPlan(dump, plan, program.outputs);
  absl::flat_hash_map<int, size_t> last_read;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    for (const Node* in : plan.kernels[k].inputs) last_read[position.at(in)] = k;
  }
  for (const Node* out : program.outputs) last_read.erase(position.at(out));  // the caller's
  ReadyPlan ready;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const codegen::KernelSource& ks = sources[k];
    ReadyKernel r;
    r.takes_rows = ks.takes_rows;
    for (const Node* in : ks.inputs) {
      r.inputs.push_back(position.at(in));
      auto last = last_read.find(position.at(in));
      if (last != last_read.end() && last->second == k) r.release.push_back(position.at(in));
    }
    for (const Node* out : ks.outputs) r.outputs.push_back(position.at(out));
    for (const Node* s : ks.scalars) r.scalars.push_back(position.at(s));
    r.workspace_bytes = ks.workspace_bytes;
    for (const Node* g : ks.index_checks) r.index_checks.push_back(position.at(g));
    r.tensor_maps = ks.tensor_maps;
    std::vector<std::string> ops;
    for (const Node* n : plan.kernels[k].nodes) ops.emplace_back(OpName(n->op()));
    r.plan_line = absl::StrCat("kernel ", k, " of ", plan.kernels.size(), " (", ks.kind, ": ",
                               absl::StrJoin(ops, " "), ")");
    TESSEL_ASSIGN_OR_RETURN(r.module, LoadModule(ks, dump, device, modules));
    TESSEL_RETURN_IF_ERROR(FindEntries(ks, device, r));
    ready.nodes += static_cast<int64_t>(plan.kernels[k].nodes.size());
    ready.kernels.push_back(std::move(r));
  }
  return ready;
}

}  // namespace

absl::StatusOr<ReadyPlan> PreparePlan(const Program& program,
                                      const absl::flat_hash_map<const Node*, int>& position,
                                      runtime::DeviceContext& device, ModuleCache& modules) {
  const FusionPlan plan = PlanFusion(program, DefaultFusionOptions(device.target()));
  std::vector<codegen::KernelSource> sources;
  for (const FusedKernel& k : plan.kernels) {
    sources.push_back(codegen::GenerateKernel(k, device.target()));
  }
  return Load(program, plan, sources, position, device, modules);
}

absl::StatusOr<ReadyPlan> PrepareDynamicPlan(const Program& program,
                                             const absl::flat_hash_map<const Node*, int>& position,
                                             runtime::DeviceContext& device, ModuleCache& modules,
                                             const codegen::DynamicRows& rows) {
  const codegen::GeneratedPlan g = codegen::PlanAndGenerateWithRows(program, device.target(), rows);
  TESSEL_ASSIGN_OR_RETURN(ReadyPlan ready,
                          Load(program, g.plan, g.kernels, position, device, modules));
  ready.one_batch = !g.specialized.empty();
  return ready;
}

}  // namespace tessel::backend
