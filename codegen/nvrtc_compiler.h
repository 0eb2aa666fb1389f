// NVRTC, opened with dlopen at first use: KernelSource -> CompiledKernel (CUBIN + PTX).
// NVRTC needs no GPU, so CI compiles every generated kernel.
#ifndef TESSEL_CODEGEN_NVRTC_COMPILER_H_
#define TESSEL_CODEGEN_NVRTC_COMPILER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessel::cuda {

struct CompileOutput {
  std::string cubin;
  std::string ptx;
  std::string log;  // warnings and ptxas's register report
};

// "sm_90a", "sm_80", ...: the target of a compile.
struct Target {
  int major = 9;
  int minor = 0;
  // The architecture-specific variant (wgmma, setmaxnreg) where the device has one.
  bool arch_specific = true;
  std::string Name() const;  // "sm_90a"
};

// The target of the GPU the CUDA backend uses (device 0), or sm_90a when there is none:
// what the backend, inspect() and explain() generate for. TESSEL_ARCH=sm_XY[a] overrides it.
Target DeviceTarget();

// The options tessel compiles with for `target` (part of the cache key).
std::vector<std::string> CompileOptions(const Target& target);

// Compiles one translation unit. Errors carry NVRTC's log.
absl::StatusOr<CompileOutput> CompileCuda(absl::string_view source, absl::string_view name,
                                          const Target& target);

// "13.0", or why NVRTC cannot be loaded.
absl::StatusOr<std::string> NvrtcVersion();

}  // namespace tessel::cuda

#endif  // TESSEL_CODEGEN_NVRTC_COMPILER_H_
