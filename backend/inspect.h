// Inspection (api.md): the plan realize() would run and the CUDA it would compile, on any
// device (planning and code generation need no GPU).
#ifndef TESSEL_BACKEND_INSPECT_H_
#define TESSEL_BACKEND_INSPECT_H_

#include <string>
#include <vector>

#include "core/tensor.h"

namespace tessel {

struct KernelInfo {
  std::string name;
  std::string kind;              // "pointwise", "reduction", "gemm", "attention", ...
  std::vector<std::string> ops;  // the fused graph operations, in order
  std::string source;            // the complete CUDA translation unit
};

// The kernels realize(outputs) would run on CUDA, without running them.
std::vector<KernelInfo> inspect(const std::vector<Tensor>& outputs);

// The same plan as text: per kernel its kind, operations, inputs, outputs, launch shape and
// the reasons for its boundaries.
std::string explain(const std::vector<Tensor>& outputs);

}  // namespace tessel

#endif  // TESSEL_BACKEND_INSPECT_H_
