#include "codegen/device_library.h"

#include "absl/strings/str_cat.h"
#include "core/stable_hash.h"

namespace tessel::codegen {

absl::Span<const DeviceHeader> DeviceLibrary() {
  // device_library_text.inc is written by the build from codegen/device/*.cuh.
  static constexpr DeviceHeader kHeaders[] = {
#include "codegen/device_library_text.inc"
  };
  return kHeaders;
}

uint64_t DeviceLibraryHash() {
  static const uint64_t hash = [] {
    uint64_t h = StableHash(absl::StrCat("codegen ", kCodegenVersion));
    for (const DeviceHeader& header : DeviceLibrary()) {
      h = StableHash(header.text, StableHash(header.name, h));
    }
    return h;
  }();
  return hash;
}

}  // namespace tessel::codegen
