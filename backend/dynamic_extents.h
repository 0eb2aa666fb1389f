// Which extents of a program its kernels take as arguments, learned from the programs seen.
//
// [ Note -- dynamic extents ]
// A loop over batch sizes records the same program with another leading extent each time;
// compiling per value would compile every kernel per batch size. As TorchDynamo's automatic
// dynamic shapes do, tessel learns what varies: programs of one *family* (the same structure
// up to extents) are compared with the first of the family seen, and the extents that differ
// are dynamic from then on. The policy:
// - only leading extents (dim 0 of a value) may be dynamic, and every dynamic extent of a
//   program must be one value B (a batch). Kernels then take B as their `rows` argument
//   (codegen::DynamicRows): pointwise kernels over [B, ...], staged reductions and
//   normalizations over other axes, and GEMMs with B rows;
// - B = 1, and a B equal to a static extent of the program, are specialized (broadcasting and
//   the planner's shape comparisons could tell such a B apart);
// - a plan serves one power-of-two bucket of B, [2^k, 2^(k+1) - 1], its decisions (GEMM
//   tiles, index width) made for the bucket's largest value: a loop over B = 1..512 builds at
//   most 10 plans of a family (the first program's and nine buckets), plus one for each B
//   equal to a static extent, whatever the order.
// Marks never clear: a family whose other extents have varied once specializes from then on.
// Anything else (a dynamic extent that is not leading, two of them with different values, a
// flip of the batch axis, whose index is B - 1 - row, a gather along it, which checks its
// indices against B, a kernel that cannot take rows) is
// specialized to the program's exact extents, as before.
#ifndef TESSEL_BACKEND_DYNAMIC_EXTENTS_H_
#define TESSEL_BACKEND_DYNAMIC_EXTENTS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "backend/program_key.h"
#include "codegen/kernel_source.h"

namespace tessel::backend {

// What the family has seen: the extents of its first program (every node's dims in order)
// and which of them have differed since.
struct Family {
  std::vector<int64_t> first;
  std::vector<bool> dynamic;
  // Buckets whose plan could not take rows: specialized without trying again.
  std::vector<int> refused_buckets;
};

// Every node's dims, in the program's order.
std::vector<int64_t> AllExtents(const OrderedProgram& program);

struct DynamicChoice {
  int64_t rows = 0;  // B
  int bucket = 0;    // k: B in [2^k, 2^(k+1) - 1]
  codegen::DynamicRows dynamic;
};

// Updates `family` with `extents` (this program's AllExtents) and says whether the program
// runs with dynamic rows, and which.
std::optional<DynamicChoice> ChooseDynamicRows(const OrderedProgram& program,
                                               const std::vector<int64_t>& extents, Family& family);

}  // namespace tessel::backend

#endif  // TESSEL_BACKEND_DYNAMIC_EXTENTS_H_
