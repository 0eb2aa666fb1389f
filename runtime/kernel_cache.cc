#include "runtime/kernel_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <random>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/environment.h"
#include "core/stable_hash.h"
#include "runtime/files.h"

namespace tessel::runtime {
namespace {

constexpr absl::string_view kMagic = "TESSEL-KERNEL-CACHE-1\n";
constexpr absl::string_view kTemporary = ".tmp.";
constexpr int64_t kAbandonedAfterSeconds = 3600;
// No entry is near this (the largest kernels' cubins are a few MB).
constexpr int64_t kMaxEntryBytes = int64_t{256} << 20;
// Other processes write to the directory too: it is counted again every this many writes, so
// that the limit holds for all of them together.
constexpr int64_t kWritesBetweenScans = 16;

// Everything that decides the compiled binary, in one string.
std::string KeyMaterial(const CompileUnit& unit, const Target& target,
                        absl::string_view nvrtc_version) {
  return absl::StrCat("cache format ", kCacheFormatVersion, "\nheaders ",
                      absl::Hex(unit.headers_hash, absl::kZeroPad16), "\nnvrtc ", nvrtc_version,
                      "\ntarget ", target.Name(), "\noptions ",
                      absl::StrJoin(CompileOptions(target), " "), "\n", unit.source);
}

// Entry layout: magic, then four length-prefixed fields (key material, cubin, ptx, log), then
// the hash of everything before it.
std::string Serialize(absl::string_view key, const CompileOutput& out) {
  std::string data(kMagic);
  for (absl::string_view field : {key, absl::string_view(out.cubin), absl::string_view(out.ptx),
                                  absl::string_view(out.log)}) {
    absl::StrAppend(&data, field.size(), "\n", field);
  }
  absl::StrAppend(&data, absl::StrFormat("%016x", StableHash(data)));
  return data;
}

// The entry's output if it is intact and for exactly `key`.
bool Deserialize(absl::string_view data, absl::string_view key, CompileOutput* out) {
  if (data.size() < kMagic.size() + 16 || !absl::StartsWith(data, kMagic)) return false;
  const absl::string_view body = data.substr(0, data.size() - 16);
  if (absl::StrFormat("%016x", StableHash(body)) != data.substr(data.size() - 16)) return false;
  absl::string_view rest = body.substr(kMagic.size());
  std::string* targets[] = {nullptr, &out->cubin, &out->ptx, &out->log};
  for (int i = 0; i < 4; ++i) {
    const size_t newline = rest.find('\n');
    size_t size = 0;
    if (newline == absl::string_view::npos || !absl::SimpleAtoi(rest.substr(0, newline), &size) ||
        rest.size() - newline - 1 < size) {
      return false;
    }
    const absl::string_view field = rest.substr(newline + 1, size);
    if (i == 0 && field != key) return false;
    if (i > 0) targets[i]->assign(field.data(), field.size());
    rest = rest.substr(newline + 1 + size);
  }
  return rest.empty() && !out->cubin.empty();
}

// Write-then-rename: readers see the old entry or the whole new one, never a part. The
// temporary's name is unique to this write: the pid, a number drawn once a process (pids
// repeat across the machines or containers sharing a directory) and a count of the writes
// (threads). A failed write leaves nothing behind.
void WriteAtomically(const std::string& dir, const std::string& path, absl::string_view data) {
  static const uint64_t nonce = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  static std::atomic<int64_t> writes{0};
  MakeDirectories(dir);
  const std::string temp =
      absl::StrCat(path, kTemporary, getpid(), ".", absl::Hex(nonce), ".", writes++);
  bool written = false;
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    written = static_cast<bool>(out.write(data.data(), data.size()));
    out.close();
    written = written && !out.fail();
  }
  if (!written || std::rename(temp.c_str(), path.c_str()) != 0) std::remove(temp.c_str());
}

// One of this cache's temporaries ("<entry>.cubin.tmp.<writer>") not written to for an hour:
// its writer has ended (killed while writing, say), since a write takes milliseconds. Its
// age, not its pid, decides: the writer may be another machine's process.
bool AbandonedTemporary(absl::string_view name, const struct stat& st) {
  if (!S_ISREG(st.st_mode) || name.size() < 33 || name[16] != '-' ||
      !absl::StartsWith(name.substr(33), absl::StrCat(".cubin", kTemporary))) {
    return false;
  }
  for (int i = 0; i < 33; ++i) {
    if (i != 16 && !absl::ascii_isxdigit(name[i])) return false;
  }
  return time(nullptr) - st.st_mtim.tv_sec > kAbandonedAfterSeconds;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const CompileOutput>> KernelCache::GetOrCompile(
    const CompileUnit& unit, const Target& target) {
  absl::StatusOr<std::string> version = NvrtcVersion();
  if (!version.ok()) return version.status();
  const std::string key = KeyMaterial(unit, target, *version);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto* hit = memory_.Find(key)) {
      ++stats_.memory_hits;
      return *hit;
    }
  }
  const std::string file =
      absl::StrFormat("%016x-%016x.cubin", StableHash(key), StableHash(key, 0x84222325cbf29ce4ull));
  const bool disk = !directory_.empty() && options_.disk_bytes > 0;
  const std::string path = disk ? absl::StrCat(directory_, "/", file) : "";
  auto out = std::make_shared<CompileOutput>();
  std::string data;
  bool present = false, from_disk = false;
  if (!path.empty() && ReadRegularFile(path, kMaxEntryBytes, &data)) {
    present = true;
    from_disk = Deserialize(data, key, out.get());
    if (!from_disk) *out = CompileOutput();
  }
  std::string entry;
  if (from_disk) {
    utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // used now: last to be trimmed
  } else {
    absl::StatusOr<CompileOutput> compiled = CompileCuda(unit, target);
    if (!compiled.ok()) return compiled.status();
    *out = *std::move(compiled);
    if (!path.empty()) {
      entry = Serialize(key, *out);
      WriteAtomically(directory_, path, entry);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (from_disk) {
    ++stats_.disk_hits;
  } else {
    ++stats_.compiles;
    if (present) ++stats_.disk_rejects;
  }
  if (!entry.empty()) {
    ++writes_;
    if (disk_bytes_ >= 0) disk_bytes_ += static_cast<int64_t>(entry.size());
    if (disk_bytes_ < 0 || disk_bytes_ > options_.disk_bytes ||
        writes_ % kWritesBetweenScans == 0) {
      TrimDirectory();
    }
  }
  const int64_t evicted = memory_.counters().evictions;
  memory_.Put(key, out);
  stats_.memory_evictions += memory_.counters().evictions - evicted;
  return std::shared_ptr<const CompileOutput>(out);
}

void KernelCache::TrimDirectory() {
  struct Entry {
    std::string path;
    int64_t bytes;
    struct timespec used;
  };
  std::vector<Entry> entries;
  int64_t total = 0;
  if (DIR* dir = opendir(directory_.c_str())) {
    while (const dirent* e = readdir(dir)) {
      const std::string name = e->d_name;
      const std::string path = absl::StrCat(directory_, "/", name);
      struct stat st;
      if (lstat(path.c_str(), &st) != 0) continue;
      if (AbandonedTemporary(name, st)) std::remove(path.c_str());
      if (!absl::EndsWith(name, ".cubin")) continue;  // a live writer's temporary is its own
      entries.push_back({path, static_cast<int64_t>(st.st_size), st.st_mtim});
      total += st.st_size;
    }
    closedir(dir);
  }
  if (total > options_.disk_bytes) {
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.used.tv_sec, a.used.tv_nsec) < std::tie(b.used.tv_sec, b.used.tv_nsec);
    });
    // Down to 90% of the limit, so that the next writes do not each trim again.
    for (const Entry& e : entries) {
      if (total <= options_.disk_bytes / 10 * 9) break;
      if (std::remove(e.path.c_str()) == 0) {
        total -= e.bytes;
        ++stats_.disk_evictions;
      }
    }
  }
  disk_bytes_ = total;
}

KernelCacheOptions DefaultKernelCacheOptions() {
  KernelCacheOptions options;
  // 0: nothing on disk; 2^40 MB (an exabyte): no limit in practice, and no overflow in bytes.
  options.disk_bytes = EnvInteger("TESSEL_CACHE_MAX_MB", 0, int64_t{1} << 40).value_or(2048) << 20;
  return options;
}

CacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::string DefaultCacheDirectory() {
  if (const char* dir = std::getenv("TESSEL_CACHE_DIR"); dir != nullptr && *dir) return dir;
  // (A relative XDG_CACHE_HOME is invalid, the XDG specification says: ignored.)
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    return absl::StrCat(xdg, "/tessel");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home) {
    return absl::StrCat(home, "/.cache/tessel");
  }
  return "";
}

KernelCache& GlobalKernelCache() {
  static KernelCache* cache = new KernelCache(DefaultCacheDirectory());
  return *cache;
}

}  // namespace tessel::runtime
