// A fuzz program: what a user's program records, as text. It is tessel's graph text
// (core/graph_text.h) with two statements more, so that a whole program fits in one file:
//
//   %0 = input f32[3,1000,16]
//   %1 = exp f32[3,1000,16] %0
//   realize %1                 realizes %1 here, mid-program, on the device under test
//   %2 = sum f32[1000,16] %1 axes=[0]
//   return %2, %0              the outputs, realized together at the end
//
// Input values are not part of the text: a replay fills each input from a data seed. Any
// PrintGraph output is a program, so a user can check their own graph with `fuzz run`.
#ifndef TESSEL_TOOLS_FUZZ_PROGRAM_H_
#define TESSEL_TOOLS_FUZZ_PROGRAM_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "tessel.h"

namespace tessel::fuzz {

struct Statement {
  enum Kind { kValue, kRealize, kReturn };
  Kind kind = kValue;
  GraphLine line;                  // kValue
  std::vector<std::string> names;  // kRealize, kReturn: the values, without '%'
};

absl::StatusOr<std::vector<Statement>> ParseProgram(absl::string_view text);

// Names the values of a program as it is recorded, and prints its text.
class ProgramWriter {
 public:
  // t's name ("%4"), first printing a line for each node of its cone not yet named.
  std::string Name(const Tensor& t);
  void Realize(const std::vector<Tensor>& values);
  void Return(const std::vector<Tensor>& outputs);
  const std::string& text() const { return text_; }

 private:
  absl::flat_hash_map<const Node*, int> numbers_;
  std::vector<NodePtr> named_;  // kept alive: a freed node's address must not be reused
  std::string text_;
};

// The values a replay recorded: each statement's tensor by name, and the outputs.
struct Replayed {
  absl::flat_hash_map<std::string, Tensor> values;
  std::vector<Tensor> outputs;
};

// What a replay does at a `realize` statement: nothing (a null hook), realize the values
// (RealizeValues), or more (plan mode checks their plan first). A failure stops the replay
// with that status.
using RealizeHook = std::function<absl::Status(const std::vector<Tensor>&)>;
absl::Status RealizeValues(const std::vector<Tensor>& values);

// Records `program` through the public API on `device`, each input filled with values drawn
// from `data_seed` (the same on every device), calling `at_realize` at `realize` statements.
// A statement the API refuses is an InvalidArgument error with its message: the text is not
// a program a user could write (the minimizer's candidates can be such). A realize that
// fails is an Aborted error; an internal error of tessel is an Internal one.
absl::StatusOr<Replayed> Replay(const std::vector<Statement>& program, Device device,
                                uint64_t data_seed, const RealizeHook& at_realize);

// The operation of `line` applied to `operands` through the public API (inputs excluded).
Tensor ApplyLine(const GraphLine& line, const std::vector<Tensor>& operands, Device device);

// The values of input number `index` of a program: normal floats (rounded to the dtype),
// small integers, or random bools.
Tensor InputValues(DType dtype, const Shape& shape, uint64_t data_seed, int index, Device device);

// Replays `program` on the CPU without data and prints it again: the text a user would get
// from recording the same calls (shapes derived again, unreachable values dropped).
absl::StatusOr<std::string> Normalize(const std::vector<Statement>& program);

}  // namespace tessel::fuzz

#endif  // TESSEL_TOOLS_FUZZ_PROGRAM_H_
