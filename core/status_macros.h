// Status helpers that Debian's Abseil (20220623) lacks. Named after the macros of later
// Abseil releases so that moving to those is a rename.
#ifndef TESSEL_CORE_STATUS_MACROS_H_
#define TESSEL_CORE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TESSEL_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::absl::Status tessel_status_ = (expr);          \
    if (!tessel_status_.ok()) return tessel_status_; \
  } while (0)

#define TESSEL_STATUS_CONCAT_INNER_(a, b) a##b
#define TESSEL_STATUS_CONCAT_(a, b) TESSEL_STATUS_CONCAT_INNER_(a, b)

#define TESSEL_ASSIGN_OR_RETURN(lhs, rexpr) \
  TESSEL_ASSIGN_OR_RETURN_IMPL_(TESSEL_STATUS_CONCAT_(tessel_statusor_, __LINE__), lhs, rexpr)

#define TESSEL_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                  \
  if (!statusor.ok()) return statusor.status();             \
  lhs = std::move(statusor).value()

#endif  // TESSEL_CORE_STATUS_MACROS_H_
