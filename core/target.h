// Target: the GPU architecture a kernel is generated and compiled for ("sm_90a", "sm_80").
// The code generator picks GEMM mainloops by it; the runtime compiles for it.
#ifndef TESSEL_CORE_TARGET_H_
#define TESSEL_CORE_TARGET_H_

#include <string>

#include "absl/strings/str_cat.h"

namespace tessel {

struct Target {
  int major = 9;
  int minor = 0;
  // The architecture-specific variant (wgmma, setmaxnreg) where the device has one.
  bool arch_specific = true;

  std::string Name() const {  // "sm_90a"
    return absl::StrCat("sm_", major, minor, arch_specific && major >= 9 ? "a" : "");
  }
  friend bool operator==(const Target& a, const Target& b) {
    return a.major == b.major && a.minor == b.minor && a.arch_specific == b.arch_specific;
  }
};

}  // namespace tessel

#endif  // TESSEL_CORE_TARGET_H_
