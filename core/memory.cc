#include "core/memory.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/execution.h"

namespace tessel {
namespace {

struct HostMemory {
  std::mutex mu;
  MemoryStats stats;
  int64_t limit = 0;
};

HostMemory& Host() {
  static HostMemory* host = new HostMemory();
  return *host;
}

// The backend whose memory the API calls mean, and its device index.
std::pair<Backend*, int> DefaultMemory() {
  const Device device = default_device();
  absl::StatusOr<Backend*> backend = GetBackend(device);
  ThrowIfError(backend.status());
  return {*backend, CurrentIndexOf(device)};
}

}  // namespace

std::string DescribeMemory(const MemoryStats& s) {
  return absl::StrCat("(in use ", s.in_use, ", reserved ", s.reserved, ", peak ", s.peak_in_use,
                      ")");
}

void* AllocateHostMemory(int64_t bytes) {
  constexpr size_t kAlign = 64;
  HostMemory& h = Host();
  std::lock_guard<std::mutex> lock(h.mu);
  if (h.limit > 0 && h.stats.in_use + bytes > h.limit) {
    ThrowOpError("allocate", "allocating ", bytes, " bytes of host memory would pass the limit of ",
                 h.limit, " bytes ", DescribeMemory(h.stats));
  }
  const size_t rounded = (static_cast<size_t>(bytes) + kAlign - 1) / kAlign * kAlign;
  void* data = std::aligned_alloc(kAlign, rounded == 0 ? kAlign : rounded);
  if (data == nullptr) ThrowOpError("allocate", "out of host memory allocating ", bytes, " bytes");
  h.stats.in_use += bytes;
  h.stats.reserved = h.stats.in_use;
  h.stats.peak_in_use = std::max(h.stats.peak_in_use, h.stats.in_use);
  return data;
}

void FreeHostMemory(void* data, int64_t bytes) {
  std::free(data);
  HostMemory& h = Host();
  std::lock_guard<std::mutex> lock(h.mu);
  h.stats.in_use -= bytes;
  h.stats.reserved = h.stats.in_use;
}

MemoryStats HostMemoryStats() {
  HostMemory& h = Host();
  std::lock_guard<std::mutex> lock(h.mu);
  return h.stats;
}

void SetHostMemoryLimit(int64_t bytes) {
  HostMemory& h = Host();
  std::lock_guard<std::mutex> lock(h.mu);
  h.limit = std::max<int64_t>(bytes, 0);
}

MemoryStats memory_stats() {
  auto [backend, index] = DefaultMemory();
  return backend->GetMemoryStats(index);
}

void empty_cache() {
  auto [backend, index] = DefaultMemory();
  ThrowIfError(backend->EmptyCache(index));
}

void set_memory_limit(int64_t bytes) {
  if (bytes < 0) ThrowOpError("set_memory_limit", "the limit must be >= 0, not ", bytes);
  auto [backend, index] = DefaultMemory();
  backend->SetMemoryLimit(index, bytes);
}

}  // namespace tessel
