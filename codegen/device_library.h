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

// A stable hash of every header's name and text.
uint64_t DeviceLibraryHash();

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_DEVICE_LIBRARY_H_
