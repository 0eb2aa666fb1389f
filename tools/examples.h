// The bundled example graphs that `//tools:inspect` shows.
#ifndef TESSEL_TOOLS_EXAMPLES_H_
#define TESSEL_TOOLS_EXAMPLES_H_

#include <string>
#include <vector>

#include "tessel.h"

namespace tessel::tools {

struct Example {
  std::string name;
  std::string description;
  std::vector<Tensor> outputs;
};

// Built on `device` from inputs without data (planning needs only shapes and dtypes):
// they can be inspected, not realized.
std::vector<Example> Examples(Device device);

}  // namespace tessel::tools

#endif  // TESSEL_TOOLS_EXAMPLES_H_
