// Shared checks for recording operations: Tensor -> Graph. Every API function in ops/
// validates its operands with these and throws tessel::Error naming itself.
#ifndef TESSEL_OPS_RECORD_H_
#define TESSEL_OPS_RECORD_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/error.h"
#include "core/node.h"
#include "core/tensor.h"

namespace tessel::ops_internal {

// "f32[2,3]" for messages.
std::string Describe(const Tensor& t);

// The common device of the operands; Error when one is empty or they differ.
Device CommonDevice(absl::string_view op, std::initializer_list<const Tensor*> operands);

// `axis` (negative counts from the end) as an index into t's dimensions, or Error.
int CheckedAxis(absl::string_view op, const Tensor& t, int64_t axis);
// The same where a scalar counts as a line of one (axis 0 or -1, as in PyTorch); its error
// names t as given (f32[], not the line it becomes).
int CheckedLineAxis(absl::string_view op, const Tensor& t, int64_t axis);

// Sorted, distinct, normalized axes; empty `axes` means every axis.
std::vector<int64_t> CheckedAxes(absl::string_view op, const Tensor& t,
                                 const std::vector<int>& axes);

// A rank-0 constant for a scalar operand.
// A scalar on the device (and device index) of `like`.
Tensor ScalarTensor(double value, DType dtype, const Tensor& like);

// Throws op's error where `value` is no value of integer dtype `dtype` (FitsInteger; floating
// dtypes take any): fills of integer tensors. `what` names the filled tensor in the message.
void CheckIntegerFill(absl::string_view op, double value, DType dtype, absl::string_view what);

// Throws op's error where `shape` passes the limits of every shape (WithinLimits).
void CheckShapeLimits(absl::string_view op, const Shape& shape);

// Records (or finds, see core/node.h) the operation `op` with the given result type.
Tensor Record(OpKind op, DType dtype, Device device, Shape shape, NodeInputs inputs,
              Attrs attrs = {});

}  // namespace tessel::ops_internal

#endif  // TESSEL_OPS_RECORD_H_
