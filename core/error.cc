#include "core/error.h"

namespace tessel {

void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw Error(std::string(status.message()));
}

namespace internal {
void CheckFailed(const char* file, int line, const char* condition, const std::string& detail) {
  throw InternalError(absl::StrCat("tessel internal error at ", file, ":", line, ": ", condition,
                                   detail.empty() ? "" : ": ", detail));
}
}  // namespace internal

}  // namespace tessel
