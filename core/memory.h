// Memory statistics and limits (api.md, "Devices, streams and memory"), for the default
// device: the current CUDA device when there is a GPU, else host memory of CPU tensors.
#ifndef TESSEL_CORE_MEMORY_H_
#define TESSEL_CORE_MEMORY_H_

#include <cstdint>
#include <string>

namespace tessel {

struct MemoryStats {
  int64_t in_use = 0;       // bytes of live buffers
  int64_t reserved = 0;     // in_use plus what the allocator keeps cached for reuse
  int64_t peak_in_use = 0;  // the most in_use has been
};

MemoryStats memory_stats();
// "(in use N, reserved N, peak N)", for messages.
std::string DescribeMemory(const MemoryStats& stats);
// Returns cached, unused memory to the system (waiting for the work that last used it).
void empty_cache();
// An allocation that would take in_use past `bytes` throws Error naming the request and the
// stats (cached memory is released first); nothing earlier is lost. 0: no limit.
void set_memory_limit(int64_t bytes);

// For the CPU backend: host buffers counted against the limit. Allocate throws Error past
// the limit or when the system has no memory to give, counting nothing then (nor its peak).
void* AllocateHostMemory(int64_t bytes);  // 64-byte aligned
void FreeHostMemory(void* data, int64_t bytes);
MemoryStats HostMemoryStats();
void SetHostMemoryLimit(int64_t bytes);

}  // namespace tessel

#endif  // TESSEL_CORE_MEMORY_H_
