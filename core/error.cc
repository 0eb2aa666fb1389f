#include "core/error.h"

namespace tessel {
namespace {
thread_local absl::string_view g_outer_op;
}  // namespace

OpErrorScope::OpErrorScope(absl::string_view op) : outermost_(g_outer_op.empty()) {
  if (outermost_) g_outer_op = op;
}

OpErrorScope::~OpErrorScope() {
  if (outermost_) g_outer_op = absl::string_view();
}

void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw Error(std::string(status.message()));
}

namespace internal {
absl::string_view ErrorOpName(absl::string_view op) { return g_outer_op.empty() ? op : g_outer_op; }

void CheckFailed(const char* file, int line, const char* condition, const std::string& detail) {
  throw InternalError(absl::StrCat("tessel internal error at ", file, ":", line, ": ", condition,
                                   detail.empty() ? "" : ": ", detail));
}
}  // namespace internal

}  // namespace tessel
