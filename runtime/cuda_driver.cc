#include "runtime/cuda_driver.h"

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/dynamic_library.h"

namespace tessel::runtime {
namespace {

absl::StatusOr<Driver> Load() {
  TESSEL_ASSIGN_OR_RETURN(void* lib, OpenLibrary({"libcuda.so.1", "libcuda.so"}));
  Driver d;
#define TESSEL_LOAD(name, symbol) TESSEL_RETURN_IF_ERROR(LoadSymbol(lib, symbol, &d.name));
  TESSEL_CUDA_DRIVER_FUNCTIONS(TESSEL_LOAD)
#undef TESSEL_LOAD
  LoadSymbol(lib, "cuCtxCreate_v2", &d.cuCtxCreateV2).IgnoreError();       // optional
  LoadSymbol(lib, "cuLaunchKernelEx", &d.cuLaunchKernelEx).IgnoreError();  // optional
  LoadSymbol(lib, "cuOccupancyMaxActiveClusters", &d.cuOccupancyMaxActiveClusters)
      .IgnoreError();  // optional
  return d;
}

}  // namespace

absl::StatusOr<const Driver*> GetDriver() {
  static const absl::StatusOr<Driver>* driver = [] {
    auto* d = new absl::StatusOr<Driver>(Load());
    if (d->ok()) {
      if (CUresult r = (*d)->cuInit(0); r != CUDA_SUCCESS) {
        const char* name = "unknown";
        (*d)->cuGetErrorName(r, &name);
        *d = absl::UnavailableError(absl::StrCat("cuInit failed: ", name));
      }
    }
    return d;
  }();
  if (!driver->ok()) return driver->status();
  return &**driver;
}

absl::Status CheckCu(CUresult result, absl::string_view what) {
  if (result == CUDA_SUCCESS) return absl::OkStatus();
  const char* name = "CUDA_ERROR_UNKNOWN";
  const char* description = "";
  if (auto d = GetDriver(); d.ok()) {
    (*d)->cuGetErrorName(result, &name);
    (*d)->cuGetErrorString(result, &description);
  }
  const auto code = result == CUDA_ERROR_OUT_OF_MEMORY ? absl::StatusCode::kResourceExhausted
                                                       : absl::StatusCode::kInternal;
  return absl::Status(code, absl::StrCat(what, ": ", name, ": ", description));
}

}  // namespace tessel::runtime
