// The regression programs (tests/fuzz/regressions/*.txt) for the CPU and GPU tests.
#ifndef TESSEL_TESTS_FUZZ_REGRESSIONS_H_
#define TESSEL_TESTS_FUZZ_REGRESSIONS_H_

#include <string>
#include <vector>

namespace tessel::fuzz {

struct RegressionProgram {
  std::string name;  // the file's name
  std::string text;
};

// From $TESSEL_FUZZ_REGRESSIONS when set (the GPU bundle), else the test's runfiles.
std::vector<RegressionProgram> RegressionPrograms();

}  // namespace tessel::fuzz

#endif  // TESSEL_TESTS_FUZZ_REGRESSIONS_H_
