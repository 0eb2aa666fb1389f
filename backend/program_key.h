// The CUDA backend's view of a Program: its values in one order (each realized leaf just
// before its first reader), and the structural key that the plan cache looks plans up by.
//
// [ Note -- the plan cache key ]
// Planning and code generation take tens of microseconds; a training step repeats the same
// graph every time. Programs are keyed by their structure: every node's operation, type,
// shape, attributes and wiring, leaves by type and shape alone. Values that kernels take as
// arguments (`full` values, generator seeds) are left out, so a step with a new learning
// rate or seed is a hit. The key is compared in full, so two programs share a plan only when
// they are the same computation up to those arguments.
#ifndef TESSEL_BACKEND_PROGRAM_KEY_H_
#define TESSEL_BACKEND_PROGRAM_KEY_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/backend.h"

namespace tessel::backend {

struct OrderedProgram {
  std::vector<const Node*> order;
  absl::flat_hash_map<const Node*, int> position;  // in `order`
};

OrderedProgram OrderProgram(const Program& program);

// The key of `program` (see the note above); `fused` is the fusion setting it is planned with.
// Without extents: the key of its family, the programs of the same structure up to extents
// (dynamic_extents.h).
std::vector<int64_t> StructureKey(const OrderedProgram& program,
                                  const std::vector<const Node*>& outputs, bool fused,
                                  bool with_extents = true);

}  // namespace tessel::backend

#endif  // TESSEL_BACKEND_PROGRAM_KEY_H_
