// TESSEL_ARCH, the target the kernels are compiled for whatever the device: two- and
// three-digit architectures with or without the "a" suffix (sm_100a was read as sm_10: found
// by a crash-hunting helper).
#include <cstdlib>

#include "core/error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"

namespace tessel::runtime {
namespace {

Target TargetFor(const char* arch) {
  setenv("TESSEL_ARCH", arch, 1);
  const Target t = TargetOfDevice(0);
  unsetenv("TESSEL_ARCH");
  return t;
}

TEST(TargetTest, ArchitecturesOfTwoAndThreeDigits) {
  struct Case {
    const char* arch;
    int major, minor;
    bool arch_specific;
  };
  for (const Case& c :
       {Case{"sm_80", 8, 0, false}, Case{"sm_90a", 9, 0, true}, Case{"sm_86", 8, 6, false},
        Case{"sm_100a", 10, 0, true}, Case{"sm_120", 12, 0, false}}) {
    SCOPED_TRACE(c.arch);
    const Target t = TargetFor(c.arch);
    EXPECT_EQ(t.major, c.major);
    EXPECT_EQ(t.minor, c.minor);
    EXPECT_EQ(t.arch_specific, c.arch_specific);
  }
}

// A setting that reads as no architecture is refused, naming it, never half read (sm_90junk
// was sm_90) or ignored (SM_90 compiled for the device's own).
TEST(TargetTest, SettingsThatAreNoArchitectureAreRefused) {
  for (const char* arch : {"sm_90junk", "SM_90", "sm_9", "compute_90", "sm_100f", "sm_1000",
                           "sm_09", "sm_99999999999999999999"}) {
    SCOPED_TRACE(arch);
    setenv("TESSEL_ARCH", arch, 1);
    EXPECT_THAT([] { TargetOfDevice(0); },
                ::testing::ThrowsMessage<Error>(::testing::HasSubstr("TESSEL_ARCH='")));
    unsetenv("TESSEL_ARCH");
  }
  EXPECT_EQ(TargetFor(" sm_90a ").Name(), "sm_90a");
}

}  // namespace
}  // namespace tessel::runtime
