// KernelSource: what the code generator hands the runtime for one FusedKernel: a complete
// CUDA translation unit and how to launch its entry points. FusedKernel -> KernelSource ->
// CompiledKernel -> Launch.
#ifndef TESSEL_CODEGEN_KERNEL_SOURCE_H_
#define TESSEL_CODEGEN_KERNEL_SOURCE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/node.h"

namespace tessel::codegen {

struct Launch {
  std::string entry;
  std::array<int64_t, 3> grid = {1, 1, 1};
  int block = 256;
};

struct KernelSource {
  std::string name;  // content-derived, stable
  std::string kind;  // "pointwise", "reduction", "normalization", "gemm"
  std::string source;
  // Every entry point takes (inputs..., outputs..., workspace if any), device pointers.
  std::vector<const Node*> inputs;
  std::vector<const Node*> outputs;
  int64_t workspace_bytes = 0;
  std::vector<Launch> launches;  // in order
};

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_KERNEL_SOURCE_H_
