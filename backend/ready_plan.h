// A plan ready to launch on one device: the plan-cache entry. Program -> FusionPlan ->
// KernelSources -> compiled and loaded kernels, with every value named by its position in
// the program's order (program_key.h), so that the entry serves any program of the same
// structure.
#ifndef TESSEL_BACKEND_READY_PLAN_H_
#define TESSEL_BACKEND_READY_PLAN_H_

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "backend/plan_graph.h"
#include "codegen/kernel_source.h"
#include "core/backend.h"
#include "runtime/device_context.h"
#include "runtime/lru_cache.h"

namespace tessel::backend {

// A loaded module, unloaded when the last plan or cache entry that uses it lets go.
class LoadedModule {
 public:
  LoadedModule(runtime::DeviceContext* device, CUmodule module)
      : device_(device), module_(module) {}
  ~LoadedModule();
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;
  CUmodule get() const { return module_; }

 private:
  runtime::DeviceContext* device_;
  CUmodule module_;
};

// Loaded modules of one device by source, the least recently used unloaded first.
using ModuleCache = runtime::LruCache<std::string, std::shared_ptr<LoadedModule>>;

struct ReadyKernel {
  std::vector<int> inputs, outputs, release;  // release: values no later kernel reads
  std::vector<int> scalars;  // nodes whose value or seed is an argument (ScalarArgument)
  int64_t workspace_bytes = 0;
  // Gathers and scatter_adds whose bad indices the kernel records, in its order.
  std::vector<int> index_checks;
  struct Entry {
    CUfunction function;
    std::array<int64_t, 3> grid;  // as generated, for the rows the plan was made at
    int block;
    int64_t shared_bytes;
    std::string name;
    codegen::RowsGrid rows_grid;  // grid[0] from the rows argument
    int persistent_per_sm;        // above 0: grid[0] at most this many blocks per SM
    int cluster = 1;              // blocks a cluster: grid[0] must be a multiple of it
  };
  bool takes_rows = false;
  std::vector<Entry> entries;
  std::vector<codegen::TensorMapSpec> tensor_maps;
  std::string plan_line;  // "kernel 2 of 3 (reduction: concat min)", for errors
  std::shared_ptr<LoadedModule> module;
};

struct ReadyPlan {
  std::vector<ReadyKernel> kernels;
  int64_t nodes = 0;  // graph nodes computed, for Stats
  // Made with dynamic rows, but some kernels for the program's extents alone: the plan serves
  // its batch size alone (backend/dynamic_extents.h).
  bool one_batch = false;
  // Its launches captured as a CUDA graph (plan_graph.h); after `kernels`, so that it goes
  // before the modules its graph launches from.
  std::unique_ptr<PlanGraph> graph = std::make_unique<PlanGraph>();
};

// The grid entry `e` of kernel `k` launches with for `rows` (0: the plan's own extents):
// persistent grids at most persistent_per_sm blocks per SM; an error past what a GPU launches.
absl::StatusOr<std::array<int64_t, 3>> LaunchGrid(const ReadyKernel& k, const ReadyKernel::Entry& e,
                                                  int64_t rows, int sm_count);

// The plan-cache miss path: plans, generates, compiles (through the kernel cache) and loads
// for `device`, whose context is current.
absl::StatusOr<ReadyPlan> PreparePlan(const Program& program,
                                      const absl::flat_hash_map<const Node*, int>& position,
                                      runtime::DeviceContext& device, ModuleCache& modules);
// The same with `rows` as the argument of the kernels that take them (the others specialized:
// ReadyPlan::one_batch).
absl::StatusOr<ReadyPlan> PrepareDynamicPlan(const Program& program,
                                             const absl::flat_hash_map<const Node*, int>& position,
                                             runtime::DeviceContext& device, ModuleCache& modules,
                                             const codegen::DynamicRows& rows);

}  // namespace tessel::backend

#endif  // TESSEL_BACKEND_READY_PLAN_H_
