// The CUDA backend's switches from the environment (README, "Inspecting what runs").
#ifndef TESSEL_BACKEND_ENVIRONMENT_H_
#define TESSEL_BACKEND_ENVIRONMENT_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/environment.h"
#include "core/target.h"
#include "fusion/planner.h"
#include "runtime/kernel_cache.h"

namespace tessel::backend {

// TESSEL_LOG=1: each compile and launch on stderr. Read once: launches ask.
inline bool LogEnabled() {
  static const bool log = EnvSwitch("TESSEL_LOG", false);
  return log;
}
// TESSEL_SYNC=1: wait for each launch and check it, so that a fault names its kernel.
inline bool SyncEnabled() {
  static const bool sync = EnvSwitch("TESSEL_SYNC", false);
  return sync;
}

// TESSEL_DYNAMIC=0: every program specialized to its extents (dynamic_extents.h), e.g. to
// compare with the dynamic kernels. Read at each plan-cache miss.
inline bool DynamicExtentsEnabled() { return EnvSwitch("TESSEL_DYNAMIC", true); }

// TESSEL_CUDA_GRAPHS=0: every launch issued one by one, never replayed from a captured CUDA
// graph (plan_graph.h), e.g. to compare. Read at each execution of a plan of several launches.
inline bool CudaGraphsEnabled() { return EnvSwitch("TESSEL_CUDA_GRAPHS", true); }

// TESSEL_PDL=0: on sm_90 and later, kernels no longer start while the one before them on the
// stream ends (programmatic dependent launch: each waits for it itself, codegen's
// GridDependency), e.g. to compare. Read at each such launch.
inline bool ProgrammaticLaunchesEnabled() { return EnvSwitch("TESSEL_PDL", true); }

// TESSEL_PERSISTENT_BLOCKS=N: persistent kernels (Hopper GEMMs, attention, sort's parts) launch at
// most N blocks (0: no cap), so that tests of small problems walk several work tiles a block, as
// large problems do on 132 SMs. Read once: launches ask.
inline int64_t PersistentBlocksCap() {
  static const int64_t cap =
      EnvInteger("TESSEL_PERSISTENT_BLOCKS", 0, int64_t{1} << 30).value_or(0);
  return cap;
}

// The settings read while a plan runs, and the kernel cache's, read where a bad one is
// refused before anything runs (the backend's Run calls this first): each is otherwise first
// read midway through a plan, or a graph capture. (Those read at every use are read again
// there; the planner's and TESSEL_DYNAMIC, read before a plan is built, are not needed here:
// ReadPlannerSettings.)
inline void ReadSettings() {
  LogEnabled();
  SyncEnabled();
  PersistentBlocksCap();
  CudaGraphsEnabled();
  ProgrammaticLaunchesEnabled();
  runtime::GlobalKernelCache();
}

// Every planner setting (those of sm_90a, which reads them all), read on a plan-cache miss
// before the program's family learns its extents: a bad one is refused with nothing learnt.
inline void ReadPlannerSettings() { DefaultFusionOptions(Target{9, 0, true}); }

inline double MillisecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace tessel::backend

#endif  // TESSEL_BACKEND_ENVIRONMENT_H_
