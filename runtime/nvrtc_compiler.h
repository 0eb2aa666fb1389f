// NVRTC, opened with dlopen at first use: a CUDA translation unit -> CUBIN + PTX.
// NVRTC needs no GPU, so CI compiles every generated kernel.
#ifndef TESSEL_RUNTIME_NVRTC_COMPILER_H_
#define TESSEL_RUNTIME_NVRTC_COMPILER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/target.h"

namespace tessel::runtime {

struct CompileOutput {
  std::string cubin;
  std::string ptx;
  std::string log;  // warnings and ptxas's register report
};

// A header that a translation unit includes by name ("tessel/gemm_sm90.cuh").
struct Header {
  absl::string_view name;
  absl::string_view text;
};

// One translation unit. Sources see no include path: only `headers`.
struct CompileUnit {
  absl::string_view name;  // the kernel's name: the file name in NVRTC's messages
  absl::string_view source;
  absl::Span<const Header> headers;
  uint64_t headers_hash = 0;  // identifies the headers' contents in cache keys
};

// The target of the first GPU (TargetOfDevice(0)), or sm_90a when there is none:
// what the backend, inspect() and explain() generate for. TESSEL_ARCH=sm_XY[a] overrides it.
Target DeviceTarget();
// The target of GPU `ordinal` of the driver (TESSEL_ARCH overrides it too).
Target TargetOfDevice(int ordinal);

// The options tessel compiles with for `target` (part of the cache key).
std::vector<std::string> CompileOptions(const Target& target);

// Compiles one translation unit. Errors carry NVRTC's log.
absl::StatusOr<CompileOutput> CompileCuda(const CompileUnit& unit, const Target& target);

// "13.0", or why NVRTC cannot be loaded.
absl::StatusOr<std::string> NvrtcVersion();

}  // namespace tessel::runtime

#endif  // TESSEL_RUNTIME_NVRTC_COMPILER_H_
