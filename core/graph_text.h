// The stable text form of a graph, one operation a line, so that tests read "this graph in,
// this plan out":
//
//   %0 = input f32[2,3]
//   %1 = full f32[] value=1.5
//   %2 = add f32[2,3] %0, %1
//   %3 = sum f32[2] %2 axes=[1]
//   return %3
//
// Values are numbered in topological order; realized nodes print as `input`. Printing is
// deterministic (no ids or addresses), and Parse(Print(g)) prints as g.
#ifndef TESSEL_CORE_GRAPH_TEXT_H_
#define TESSEL_CORE_GRAPH_TEXT_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/tensor.h"

namespace tessel {

std::string PrintGraph(const std::vector<Tensor>& outputs);

// One line of the text form: "%<number> = <op> <type> <operands> <attributes>", operands
// named by `numbers` (which must hold every input of an unrealized node). Realized nodes
// print as `input`.
std::string PrintGraphLine(const Node& node, int number,
                           const absl::flat_hash_map<const Node*, int>& numbers);

// One parsed `%name = op type operands attributes` line, before anything is recorded.
struct GraphLine {
  std::string name;  // without '%'
  OpKind op = OpKind::kInput;
  DType dtype = DType::kF32;
  Shape shape;
  std::vector<std::string> operands;  // names without '%'
  Attrs attrs;
};
// Errors say what is wrong with the line (not which line it is).
absl::StatusOr<GraphLine> ParseGraphLine(absl::string_view line);

struct ParsedGraph {
  std::vector<Tensor> outputs;  // from the `return` line
  // Every value by its name without '%' ("0", "x", ...). Inputs carry no data.
  std::vector<std::pair<std::string, Tensor>> values;
  Tensor Value(absl::string_view name) const;  // empty Tensor when there is none
};

// Nodes are recorded as written (no shape inference: ops/ does that for user code), on
// `device`. Errors name the line.
absl::StatusOr<ParsedGraph> ParseGraph(absl::string_view text, Device device = Device::kCPU);

}  // namespace tessel

#endif  // TESSEL_CORE_GRAPH_TEXT_H_
