// Generated kernels through the runtime's compiler: the code generator's device library
// becomes NVRTC's named headers. What the CUDA backend, the tests and the fuzzer compile with.
#ifndef TESSEL_BACKEND_COMPILE_H_
#define TESSEL_BACKEND_COMPILE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "codegen/kernel_source.h"
#include "core/target.h"
#include "runtime/kernel_cache.h"
#include "runtime/nvrtc_compiler.h"

namespace tessel::backend {

// `ks` as a translation unit (views into `ks`, which must outlive it).
runtime::CompileUnit UnitOf(const codegen::KernelSource& ks);

// NVRTC directly, no cache.
absl::StatusOr<runtime::CompileOutput> Compile(const codegen::KernelSource& ks,
                                               const Target& target);

// Through the process-wide kernel cache (memory, disk, then NVRTC).
absl::StatusOr<std::shared_ptr<const runtime::CompileOutput>> CompileCached(
    const codegen::KernelSource& ks, const Target& target);

}  // namespace tessel::backend

#endif  // TESSEL_BACKEND_COMPILE_H_
