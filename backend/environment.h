// The CUDA backend's switches from the environment (README, "Inspecting what runs").
#ifndef TESSEL_BACKEND_ENVIRONMENT_H_
#define TESSEL_BACKEND_ENVIRONMENT_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace tessel::backend {

inline bool EnvEnabled(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}
// TESSEL_LOG=1: each compile and launch on stderr. Read once: launches ask.
inline bool LogEnabled() {
  static const bool log = EnvEnabled("TESSEL_LOG");
  return log;
}
// TESSEL_SYNC=1: wait for each launch and check it, so that a fault names its kernel.
inline bool SyncEnabled() {
  static const bool sync = EnvEnabled("TESSEL_SYNC");
  return sync;
}

// TESSEL_DYNAMIC=0: every program specialized to its extents (dynamic_extents.h), e.g. to
// compare with the dynamic kernels. Read at each plan-cache miss.
inline bool DynamicExtentsEnabled() {
  const char* v = std::getenv("TESSEL_DYNAMIC");
  return v == nullptr || std::string(v) != "0";
}

// TESSEL_CUDA_GRAPHS=0: every launch issued one by one, never replayed from a captured CUDA
// graph (plan_graph.h), e.g. to compare. Read at each execution of a plan of several launches.
inline bool CudaGraphsEnabled() {
  const char* v = std::getenv("TESSEL_CUDA_GRAPHS");
  return v == nullptr || std::string(v) != "0";
}

// TESSEL_PDL=0: on sm_90 and later, kernels no longer start while the one before them on the
// stream ends (programmatic dependent launch: each waits for it itself, codegen's
// GridDependency), e.g. to compare. Read at each such launch.
inline bool ProgrammaticLaunchesEnabled() {
  const char* v = std::getenv("TESSEL_PDL");
  return v == nullptr || std::string(v) != "0";
}

// TESSEL_PERSISTENT_BLOCKS=N: persistent kernels (Hopper GEMMs, attention, sort's parts) launch at
// most N blocks, so that tests of small problems walk several work tiles a block, as large problems
// do on 132 SMs. Read once: launches ask.
inline int64_t PersistentBlocksCap() {
  static const int64_t cap = [] {
    const char* v = std::getenv("TESSEL_PERSISTENT_BLOCKS");
    return v == nullptr ? int64_t{0} : std::max<int64_t>(0, std::atoll(v));
  }();
  return cap;
}

inline double MillisecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace tessel::backend

#endif  // TESSEL_BACKEND_ENVIRONMENT_H_
