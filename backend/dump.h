// TESSEL_DUMP=DIR: every compiled kernel's .cu, .ptx and .cubin, and per realize the plan and a
// Graphviz graph coloured by kernel. Also where a kernel that fails to compile is written.
#ifndef TESSEL_BACKEND_DUMP_H_
#define TESSEL_BACKEND_DUMP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/kernel_source.h"
#include "fusion/plan.h"

namespace tessel::backend {

// The dump directory (made if missing), or "" when TESSEL_DUMP is unset; an error where it
// is no directory and cannot be made one (a file of that name).
absl::StatusOr<std::string> DumpDirectory();

// Writes `text` to DIR/file (creating DIR); returns the path, or "" on failure.
std::string WriteDumpFile(const std::string& dir, const std::string& file, const std::string& text);

// The graph as Graphviz: one node per value, filled with its kernel's colour.
std::string GraphDot(const FusionPlan& plan, const std::vector<const Node*>& outputs);

// Writes realize-<n>.plan.txt and realize-<n>.dot for one realize.
void DumpPlan(const std::string& dir, const FusionPlan& plan,
              const std::vector<const Node*>& outputs);

}  // namespace tessel::backend

#endif  // TESSEL_BACKEND_DUMP_H_
