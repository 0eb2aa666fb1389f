// dlopen/dlsym with errors as Status: how tessel reaches libcuda and libnvrtc at run time.
#ifndef TESSEL_RUNTIME_DYNAMIC_LIBRARY_H_
#define TESSEL_RUNTIME_DYNAMIC_LIBRARY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tessel::runtime {

// The first of `names` that dlopen can open (kept open for the process's life).
absl::StatusOr<void*> OpenLibrary(const std::vector<std::string>& names);

// Looks up `symbol` and stores it in `*fn`.
template <typename F>
absl::Status LoadSymbol(void* library, const char* symbol, F* fn);

absl::StatusOr<void*> FindSymbol(void* library, const char* symbol);

template <typename F>
absl::Status LoadSymbol(void* library, const char* symbol, F* fn) {
  absl::StatusOr<void*> p = FindSymbol(library, symbol);
  if (!p.ok()) return p.status();
  *fn = reinterpret_cast<F>(*p);
  return absl::OkStatus();
}

}  // namespace tessel::runtime

#endif  // TESSEL_RUNTIME_DYNAMIC_LIBRARY_H_
