#include "core/backend.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/environment.h"
#include "core/error.h"

namespace tessel {
namespace {

struct Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<Backend>> backends;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

absl::StatusOr<int64_t> Backend::CreateStream(int) {
  static std::atomic<int64_t> next{1};
  return next++;
}

absl::Status Backend::SynchronizeStream(int, int64_t) { return Synchronize(); }

absl::StatusOr<bool> Backend::CopyInPlace(Buffer&, const Buffer&, int64_t) { return false; }

absl::StatusOr<BufferPtr> Backend::WrapMemory(void*, DType, int64_t, std::function<void(void*)>) {
  return absl::UnimplementedError(
      absl::StrCat("wrapping ", DeviceName(device()), " memory is not built yet"));
}

absl::StatusOr<void*> Backend::NativeStream(int, int64_t) { return nullptr; }

void RegisterBackend(std::unique_ptr<Backend> backend) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.backends.push_back(std::move(backend));
}

absl::StatusOr<Backend*> GetBackend(Device device) {
  Backend* found = nullptr;
  {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    for (const auto& b : r.backends) {
      if (b->device() == device) found = b.get();
    }
  }
  if (found == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("no ", DeviceName(device), " backend is built into this program"));
  }
  absl::Status available = found->Available();
  if (!available.ok()) {
    return absl::Status(
        available.code(),
        absl::StrCat("the ", DeviceName(device), " device is unavailable: ", available.message()));
  }
  return found;
}

Device default_device() {
  if (const std::optional<std::string> env = EnvString("TESSEL_DEVICE")) {
    const std::string& value = *env;
    if (value == "cpu") return Device::kCPU;
    if (value == "cuda") {
      auto backend = GetBackend(Device::kCUDA);
      if (!backend.ok()) {
        ThrowOpError("default_device", "TESSEL_DEVICE=cuda but ", backend.status().message());
      }
      return Device::kCUDA;
    }
    ThrowOpError("default_device", "TESSEL_DEVICE must be cpu or cuda, not '", value, "'");
  }
  return UsableCudaBackend("default_device") != nullptr ? Device::kCUDA : Device::kCPU;
}

Backend* UsableCudaBackend(absl::string_view op) {
  const absl::StatusOr<Backend*> cuda = GetBackend(Device::kCUDA);
  if (cuda.ok()) return *cuda;
  if (absl::IsInvalidArgument(cuda.status())) ThrowOpError(op, cuda.status().message());
  return nullptr;
}

}  // namespace tessel

namespace tessel {

void synchronize() {
  std::vector<Backend*> backends;
  {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    for (const auto& b : r.backends) backends.push_back(b.get());
  }
  for (Backend* b : backends) {
    if (b->Available().ok()) ThrowIfError(b->Synchronize());
  }
}

}  // namespace tessel
