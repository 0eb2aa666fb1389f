// OpKind: the graph's operations, generated from core/op_table.def (one row per operation).
#ifndef TESSEL_CORE_OP_KIND_H_
#define TESSEL_CORE_OP_KIND_H_

#include <ostream>

#include "absl/strings/string_view.h"

namespace tessel {

enum class OpKind {
#define TESSEL_OP(kind, text, arity, category, cost, attrs) kind,
#include "core/op_table.def"
#undef TESSEL_OP
};

enum class OpCategory {
  kSource,       // no inputs: data, constants, generators
  kElementwise,  // one output element from the same position of each (broadcast) input
  kReduce,       // over a set of axes
  kView,         // moves or repeats elements without arithmetic
  kConcat,
  kMatmul,
  kScan,     // running sums or products along one axis
  kSort,     // the order of the elements along one axis (indices)
  kIndex,    // elements picked at positions held in an index tensor
  kScatter,  // values added at positions held in an index tensor (x, index, src and the
             // index's stable order along the axis)
};

struct OpInfo {
  absl::string_view name;
  int arity;  // -1: any number of inputs
  OpCategory category;
  int cost;                 // inline cost, an add's 1 (see core/op_table.def)
  absl::string_view attrs;  // see core/op_table.def
};

const OpInfo& GetOpInfo(OpKind op);
inline absl::string_view OpName(OpKind op) { return GetOpInfo(op).name; }
// False when `name` names no operation.
bool ParseOpKind(absl::string_view name, OpKind* op);
inline std::ostream& operator<<(std::ostream& os, OpKind op) { return os << OpName(op); }

}  // namespace tessel

#endif  // TESSEL_CORE_OP_KIND_H_
