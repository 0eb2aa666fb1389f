// Errors. Users see tessel::Error, thrown at the call that recorded a bad operation (api.md)
// or by a failed realize. Inside the library, absl::Status flows until it reaches the API
// boundary, where ThrowIfError turns it into an Error.
#ifndef TESSEL_CORE_ERROR_H_
#define TESSEL_CORE_ERROR_H_

#include <stdexcept>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace tessel {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// A broken internal invariant (TESSEL_CHECK): a tessel bug, never the user's mistake. Derived
// from Error so that callers that catch Error keep working.
class InternalError : public Error {
 public:
  explicit InternalError(const std::string& message) : Error(message) {}
};

// An op the user called that records through others (std through var, pad through full,
// linear through matmul and add): while its scope lives on this thread, the errors those
// raise name it, the op the user wrote. The outermost scope wins. `op` must outlive the scope
// (the ops pass literals).
class OpErrorScope {
 public:
  explicit OpErrorScope(absl::string_view op);
  ~OpErrorScope();
  OpErrorScope(const OpErrorScope&) = delete;
  OpErrorScope& operator=(const OpErrorScope&) = delete;

 private:
  bool outermost_;
};

namespace internal {
// `op`, or the outermost OpErrorScope's op where one lives on this thread.
absl::string_view ErrorOpName(absl::string_view op);
}  // namespace internal

// Throws Error("tessel::<op>: <pieces...>"): the form of every user-facing message.
template <typename... Pieces>
[[noreturn]] void ThrowOpError(absl::string_view op, const Pieces&... pieces) {
  throw Error(absl::StrCat("tessel::", internal::ErrorOpName(op), ": ", pieces...));
}

// Throws Error with the status message when `status` is not OK.
void ThrowIfError(const absl::Status& status);

namespace internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition,
                              const std::string& detail);
}  // namespace internal

}  // namespace tessel

// Internal invariants (not user errors): a failure is a tessel bug. It throws rather than
// aborts so that the process stays usable, and names the file and line.
#define TESSEL_CHECK(cond, ...)                                                                   \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      ::tessel::internal::CheckFailed(__FILE__, __LINE__, #cond, ::absl::StrCat("" __VA_ARGS__)); \
    }                                                                                             \
  } while (0)

#endif  // TESSEL_CORE_ERROR_H_
