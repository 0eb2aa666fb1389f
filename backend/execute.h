// Launching a ready plan: buffers for its values, scalars and TMA descriptors packed per
// launch, and the waits that order it after the work of other streams that it reads.
#ifndef TESSEL_BACKEND_EXECUTE_H_
#define TESSEL_BACKEND_EXECUTE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "backend/program_key.h"
#include "backend/ready_plan.h"
#include "core/buffer.h"
#include "runtime/device_context.h"

namespace tessel::backend {

// Enqueues `plan` for `program` on `stream` of `device` (its context current) and returns
// the buffers of `outputs`, in order. `rows`: the value of the plan's dynamic rows (0: none).
absl::StatusOr<std::vector<BufferPtr>> ExecutePlan(const ReadyPlan& plan,
                                                   const OrderedProgram& program,
                                                   const std::vector<const Node*>& outputs,
                                                   runtime::DeviceContext& device, CUstream stream,
                                                   int64_t rows);

}  // namespace tessel::backend

#endif  // TESSEL_BACKEND_EXECUTE_H_
