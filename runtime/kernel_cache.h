// The kernel cache: CompiledKernel by KernelSource, in memory, then on disk, then NVRTC.
//
// The key covers everything that decides the binary: the complete source, the compile
// options, the target architecture, the NVRTC version and the code generator's version.
// Disk entries are written to a temporary file and renamed into place, and they hold the
// key material itself, so a truncated, corrupt or colliding entry is detected, recompiled
// and rewritten, never trusted.
#ifndef TESSEL_RUNTIME_KERNEL_CACHE_H_
#define TESSEL_RUNTIME_KERNEL_CACHE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "runtime/nvrtc_compiler.h"

namespace tessel::runtime {

// Bumped whenever generated code changes meaning for the same source text (e.g. the
// runtime's calling convention): old disk entries then miss.
inline constexpr int kCodegenVersion = 1;

struct CacheStats {
  int64_t memory_hits = 0;
  int64_t disk_hits = 0;
  int64_t compiles = 0;
  int64_t disk_rejects = 0;  // entries that were present but corrupt or for another key
};

class KernelCache {
 public:
  // `directory` empty: memory only.
  explicit KernelCache(std::string directory) : directory_(std::move(directory)) {}

  absl::StatusOr<std::shared_ptr<const CompileOutput>> GetOrCompile(const CompileUnit& unit,
                                                                    const Target& target);
  CacheStats stats() const;
  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const CompileOutput>> memory_;
  CacheStats stats_;
};

// TESSEL_CACHE_DIR, else $XDG_CACHE_HOME/tessel, else $HOME/.cache/tessel ("" if none).
std::string DefaultCacheDirectory();

// The process-wide cache in DefaultCacheDirectory().
KernelCache& GlobalKernelCache();

}  // namespace tessel::runtime

#endif  // TESSEL_RUNTIME_KERNEL_CACHE_H_
