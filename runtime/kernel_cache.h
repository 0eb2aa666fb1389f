// The kernel cache: CompileOutput by CompileUnit and target, in memory, then on disk, then
// NVRTC.
//
// The key covers everything that decides the binary: the complete source, the compile
// options, the target architecture, the NVRTC version and the code generator's version.
// Disk entries are written to a temporary file and renamed into place, and they hold the
// key material itself, so a truncated, corrupt or colliding entry is detected, recompiled
// and rewritten, never trusted.
//
// Both tiers are bounded. Memory holds the most recently used entries (the CUDA backend keeps
// its loaded modules in front of it, so this tier serves only reloads). The directory is
// trimmed to TESSEL_CACHE_MAX_MB (default 2048; 0: no disk tier) after a write that passes
// it, oldest use first (a disk hit renews the entry's modification time), and counted again
// every few writes, since other processes write there too.
#ifndef TESSEL_RUNTIME_KERNEL_CACHE_H_
#define TESSEL_RUNTIME_KERNEL_CACHE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/lru_cache.h"
#include "runtime/nvrtc_compiler.h"

namespace tessel::runtime {

// Bumped whenever the cache's entries change meaning for the same key: old disk entries
// then miss. (A code generator's own version belongs in CompileUnit::headers_hash.)
inline constexpr int kCacheFormatVersion = 1;

struct CacheStats {
  int64_t memory_hits = 0;
  int64_t disk_hits = 0;
  int64_t compiles = 0;
  int64_t disk_rejects = 0;  // entries that were present but corrupt or for another key
  int64_t memory_evictions = 0;
  int64_t disk_evictions = 0;  // files removed to keep the directory under its limit
};

struct KernelCacheOptions {
  size_t memory_entries = 256;
  int64_t disk_bytes = int64_t{2048} << 20;
};

// TESSEL_CACHE_MAX_MB, if set, as the disk limit (an Error where it is no integer in
// [0, 2^40]).
KernelCacheOptions DefaultKernelCacheOptions();

class KernelCache {
 public:
  // `directory` empty: memory only.
  explicit KernelCache(std::string directory,
                       KernelCacheOptions options = DefaultKernelCacheOptions())
      : directory_(std::move(directory)), options_(options), memory_(options.memory_entries) {}

  absl::StatusOr<std::shared_ptr<const CompileOutput>> GetOrCompile(const CompileUnit& unit,
                                                                    const Target& target);
  CacheStats stats() const;
  const std::string& directory() const { return directory_; }

 private:
  // Removes the least recently used files until the directory holds at most the limit.
  void TrimDirectory();

  std::string directory_;
  KernelCacheOptions options_;
  mutable std::mutex mu_;
  LruCache<std::string, std::shared_ptr<const CompileOutput>> memory_;
  CacheStats stats_;
  int64_t disk_bytes_ = -1;  // what this process believes the directory holds; -1: unknown
  int64_t writes_ = 0;       // entries this process wrote
};

// TESSEL_CACHE_DIR, else $XDG_CACHE_HOME/tessel (an absolute one), else $HOME/.cache/tessel
// ("" if none).
std::string DefaultCacheDirectory();

// The process-wide cache in DefaultCacheDirectory().
KernelCache& GlobalKernelCache();

}  // namespace tessel::runtime

#endif  // TESSEL_RUNTIME_KERNEL_CACHE_H_
