// What the CUDA backend would run for a program now, for inspect() and explain(): the
// registered backend's learned dynamic extents (dynamic_extents.h).
#ifndef TESSEL_BACKEND_CUDA_BACKEND_H_
#define TESSEL_BACKEND_CUDA_BACKEND_H_

#include <optional>

#include "backend/dynamic_extents.h"
#include "core/backend.h"

namespace tessel::backend {

// The dynamic rows realize would run `program` with; nullopt without a usable GPU, before
// its family has varied, or where it would be specialized. Changes nothing.
std::optional<DynamicChoice> PeekDynamicRows(const Program& program);

}  // namespace tessel::backend

#endif  // TESSEL_BACKEND_CUDA_BACKEND_H_
