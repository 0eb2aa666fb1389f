// One output of the differential check: the CUDA result against the CPU reference, with the
// fragile elements left out (see the note in sensitivity.h).
#ifndef TESSEL_TOOLS_FUZZ_COMPARE_H_
#define TESSEL_TOOLS_FUZZ_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tessel.h"

namespace tessel::fuzz {

// The relative tolerance of values computed in `precision` (kI32 or kBool: exact).
double RelativeTolerance(DType precision);

struct OutputValues {
  std::vector<double> reference;                 // CPU
  std::vector<std::vector<double>> under_noise;  // CPU, perturbed (sensitivity.h)
  std::vector<uint8_t> tainted;                  // CPU, per element
  std::vector<double> device;                    // the backend under test
};

struct OutputDiff {
  int64_t compared = 0;    // elements checked
  int64_t fragile = 0;     // elements left out
  int64_t mismatched = 0;  // elements outside the tolerance
  std::string first;       // the first mismatch, for the report
};

OutputDiff CompareOutput(const OutputValues& v, const Shape& shape, DType precision);

}  // namespace tessel::fuzz

#endif  // TESSEL_TOOLS_FUZZ_COMPARE_H_
