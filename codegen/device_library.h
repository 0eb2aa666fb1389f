// The hand-written device library (codegen/device/*.cuh): PTX wrappers and GEMM mainloop
// templates, embedded in the binary and handed to NVRTC as named headers ("tessel/ptx.cuh").
// Generated sources include what they use; the kernel cache keys on the library's hash.
#ifndef TESSEL_CODEGEN_DEVICE_LIBRARY_H_
#define TESSEL_CODEGEN_DEVICE_LIBRARY_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tessel::codegen {

struct DeviceHeader {
  absl::string_view name;  // as included: "tessel/gemm_sm90.cuh"
  absl::string_view text;
};

absl::Span<const DeviceHeader> DeviceLibrary();

// A stable hash of kCodegenVersion and every header's name and text: what compiled kernels
// depend on besides their own source.
uint64_t DeviceLibraryHash();

// Bumped whenever generated code changes meaning for the same source text (e.g. the
// backend's calling convention): compiled kernels cached on disk then miss.
inline constexpr int kCodegenVersion = 2;

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_DEVICE_LIBRARY_H_
