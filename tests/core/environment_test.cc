// Settings from the environment: switches, integers in a range and choices, each refused with
// an Error naming the variable where it reads as none.
#include "core/environment.h"

#include <cstdlib>

#include "core/error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessel {
namespace {

constexpr char kName[] = "TESSEL_ENVIRONMENT_TEST";

class EnvironmentTest : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv(kName); }
  void Set(const char* value) { setenv(kName, value, 1); }
};

TEST_F(EnvironmentTest, SwitchesReadEveryUsualSpelling) {
  EXPECT_TRUE(EnvSwitch(kName, true));  // unset
  EXPECT_FALSE(EnvSwitch(kName, false));
  Set("");
  EXPECT_TRUE(EnvSwitch(kName, true));
  for (const char* on : {"1", "true", "ON", " yes "}) {
    Set(on);
    EXPECT_TRUE(EnvSwitch(kName, false)) << on;
  }
  for (const char* off : {"0", "false", "Off", "no\n"}) {
    Set(off);
    EXPECT_FALSE(EnvSwitch(kName, true)) << off;
  }
  for (const char* bad : {"2", "maybe", "0x", "1 1"}) {
    Set(bad);
    EXPECT_THAT([] { EnvSwitch(kName, true); },
                ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
                    "TESSEL_ENVIRONMENT_TEST='" + std::string(bad).substr(0, 1))))
        << bad;
  }
}

TEST_F(EnvironmentTest, IntegersInTheirRangeOnly) {
  EXPECT_EQ(EnvInteger(kName, 0, 16), std::nullopt);
  Set(" 12 ");
  EXPECT_EQ(EnvInteger(kName, 0, 16), 12);
  for (const char* bad : {"17", "-1", "1.5", "abc", "5junk", "99999999999999999999"}) {
    Set(bad);
    EXPECT_THAT([] { EnvInteger(kName, 0, 16); },
                ::testing::ThrowsMessage<Error>(::testing::HasSubstr("not an integer in [0, 16]")))
        << bad;
  }
}

TEST_F(EnvironmentTest, ChoicesExactly) {
  EXPECT_EQ(EnvChoice(kName, {"last", "launch"}), std::nullopt);
  Set("launch");
  EXPECT_EQ(EnvChoice(kName, {"last", "launch"}), "launch");
  Set("first");
  EXPECT_THAT(
      [] {
        EnvChoice(kName, {"last", "launch"});
      },
      ::testing::ThrowsMessage<Error>(::testing::HasSubstr("is none of last, launch")));
}

}  // namespace
}  // namespace tessel
