#include "backend/compile.h"

#include <vector>

#include "codegen/device_library.h"

namespace tessel::backend {
namespace {

absl::Span<const runtime::Header> DeviceHeaders() {
  static const auto* headers = [] {
    auto* h = new std::vector<runtime::Header>;
    for (const codegen::DeviceHeader& d : codegen::DeviceLibrary()) h->push_back({d.name, d.text});
    return h;
  }();
  return *headers;
}

}  // namespace

runtime::CompileUnit UnitOf(const codegen::KernelSource& ks) {
  return runtime::CompileUnit{ks.name, ks.source, DeviceHeaders(), codegen::DeviceLibraryHash()};
}

absl::StatusOr<runtime::CompileOutput> Compile(const codegen::KernelSource& ks,
                                               const Target& target) {
  return runtime::CompileCuda(UnitOf(ks), target);
}

absl::StatusOr<std::shared_ptr<const runtime::CompileOutput>> CompileCached(
    const codegen::KernelSource& ks, const Target& target) {
  return runtime::GlobalKernelCache().GetOrCompile(UnitOf(ks), target);
}

}  // namespace tessel::backend
