#include "runtime/dynamic_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessel::runtime {

absl::StatusOr<void*> OpenLibrary(const std::vector<std::string>& names) {
  std::vector<std::string> errors;
  for (const std::string& name : names) {
    if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* error = dlerror();
    errors.push_back(error != nullptr ? error : name);
  }
  return absl::UnavailableError(absl::StrCat("cannot open ", absl::StrJoin(names, " or "), " (",
                                             absl::StrJoin(errors, "; "), ")"));
}

absl::StatusOr<void*> FindSymbol(void* library, const char* symbol) {
  dlerror();
  void* p = dlsym(library, symbol);
  if (p == nullptr) {
    return absl::UnavailableError(absl::StrCat("symbol ", symbol, " not found"));
  }
  return p;
}

}  // namespace tessel::runtime
