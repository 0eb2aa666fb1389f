// The kernel cache: memory, then disk, then NVRTC; corrupt or truncated entries recompile.
#include "runtime/kernel_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tessel::runtime {
namespace {

constexpr char kSource[] = "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }\n";
const Target kSm90a{9, 0, true};

CompileUnit Unit(absl::string_view source, absl::string_view name) { return {name, source, {}, 0}; }

class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!NvrtcVersion().ok()) GTEST_SKIP() << "NVRTC is not installed";
    dir_ = absl::StrCat(::testing::TempDir(), "/cache-", getpid(), "-",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  // The single entry file in the cache directory.
  std::string EntryPath() {
    DIR* d = opendir(dir_.c_str());
    std::string found;
    while (dirent* e = d ? readdir(d) : nullptr) {
      if (std::string(e->d_name).find(".cubin") != std::string::npos) found = e->d_name;
    }
    if (d) closedir(d);
    return dir_ + "/" + found;
  }
  std::string dir_;
};

TEST_F(KernelCacheTest, MemoryThenDisk) {
  KernelCache cache(dir_);
  auto first = cache.GetOrCompile(Unit(kSource, "k"), kSm90a);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE((*first)->cubin.empty());
  auto again = cache.GetOrCompile(Unit(kSource, "k"), kSm90a);
  EXPECT_EQ(cache.stats().compiles, 1);
  EXPECT_EQ(cache.stats().memory_hits, 1);
  EXPECT_EQ(again->get(), first->get());

  KernelCache fresh(dir_);  // another process: memory empty, disk warm
  auto loaded = fresh.GetOrCompile(Unit(kSource, "k"), kSm90a);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(fresh.stats().disk_hits, 1);
  EXPECT_EQ(fresh.stats().compiles, 0);
  EXPECT_EQ((*loaded)->cubin, (*first)->cubin);
}

TEST_F(KernelCacheTest, KeyCoversSourceAndTarget) {
  KernelCache cache(dir_);
  ASSERT_TRUE(cache.GetOrCompile(Unit(kSource, "k"), kSm90a).ok());
  ASSERT_TRUE(cache.GetOrCompile(Unit(kSource, "k"), Target{8, 0, false}).ok());
  ASSERT_TRUE(cache.GetOrCompile(Unit(std::string(kSource) + "// changed\n", "k"), kSm90a).ok());
  EXPECT_EQ(cache.stats().compiles, 3);
}

TEST_F(KernelCacheTest, CorruptEntriesAreRecompiledNotTrusted) {
  { ASSERT_TRUE(KernelCache(dir_).GetOrCompile(Unit(kSource, "k"), kSm90a).ok()); }
  const std::string path = EntryPath();
  std::string data;
  {
    std::ifstream in(path, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), {});
  }
  data[data.size() / 2] ^= 0x5a;  // flip bits in the middle
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
  KernelCache cache(dir_);
  auto out = cache.GetOrCompile(Unit(kSource, "k"), kSm90a);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(cache.stats().disk_rejects, 1);
  EXPECT_EQ(cache.stats().compiles, 1);
  KernelCache after(dir_);  // the rewritten entry is good again
  ASSERT_TRUE(after.GetOrCompile(Unit(kSource, "k"), kSm90a).ok());
  EXPECT_EQ(after.stats().disk_hits, 1);
}

TEST_F(KernelCacheTest, TruncatedEntriesAreRecompiled) {
  { ASSERT_TRUE(KernelCache(dir_).GetOrCompile(Unit(kSource, "k"), kSm90a).ok()); }
  const std::string path = EntryPath();
  ASSERT_EQ(truncate(path.c_str(), 100), 0);
  KernelCache cache(dir_);
  ASSERT_TRUE(cache.GetOrCompile(Unit(kSource, "k"), kSm90a).ok());
  EXPECT_EQ(cache.stats().disk_rejects, 1);
}

// Sources that differ only in a comment: entries of (nearly) the same size.
std::string Variant(int i) { return absl::StrCat(kSource, "// variant ", i, "\n"); }

TEST_F(KernelCacheTest, MemoryHoldsTheMostRecentlyUsed) {
  KernelCacheOptions options;
  options.memory_entries = 2;
  KernelCache cache(dir_, options);
  for (int i : {0, 1, 2}) ASSERT_TRUE(cache.GetOrCompile(Unit(Variant(i), "k"), kSm90a).ok());
  EXPECT_EQ(cache.stats().memory_evictions, 1);
  ASSERT_TRUE(cache.GetOrCompile(Unit(Variant(2), "k"), kSm90a).ok());
  EXPECT_EQ(cache.stats().memory_hits, 1);
  ASSERT_TRUE(cache.GetOrCompile(Unit(Variant(0), "k"), kSm90a).ok());  // evicted: from disk
  EXPECT_EQ(cache.stats().disk_hits, 1);
  EXPECT_EQ(cache.stats().compiles, 3);
}

TEST_F(KernelCacheTest, DirectoryStaysUnderItsLimitDroppingTheLeastRecentlyUsed) {
  { ASSERT_TRUE(KernelCache(dir_).GetOrCompile(Unit(Variant(0), "k"), kSm90a).ok()); }
  std::ifstream first(EntryPath(), std::ios::binary | std::ios::ate);
  const int64_t entry = first.tellg();
  ASSERT_GT(entry, 1000);
  KernelCacheOptions options;
  options.disk_bytes = entry * 5 / 2;  // room for two entries
  KernelCache cache(dir_, options);
  for (int i : {1, 0, 2}) {  // 0 is used again after 1: 1 is the least recently used
    usleep(20000);
    ASSERT_TRUE(cache.GetOrCompile(Unit(Variant(i), "k"), kSm90a).ok());
  }
  EXPECT_EQ(cache.stats().disk_evictions, 1);
  KernelCache fresh(dir_);
  for (int i : {0, 2}) ASSERT_TRUE(fresh.GetOrCompile(Unit(Variant(i), "k"), kSm90a).ok());
  EXPECT_EQ(fresh.stats().disk_hits, 2);
  ASSERT_TRUE(fresh.GetOrCompile(Unit(Variant(1), "k"), kSm90a).ok());
  EXPECT_EQ(fresh.stats().compiles, 1);
}

TEST_F(KernelCacheTest, EmptyEntriesAndOnesThatAreNoFileAreMisses) {
  { ASSERT_TRUE(KernelCache(dir_).GetOrCompile(Unit(kSource, "k"), kSm90a).ok()); }
  const std::string path = EntryPath();
  ASSERT_EQ(truncate(path.c_str(), 0), 0);
  {
    KernelCache cache(dir_);
    ASSERT_TRUE(cache.GetOrCompile(Unit(kSource, "k"), kSm90a).ok());
    EXPECT_EQ(cache.stats().disk_rejects, 1);
  }
  // A pipe in the entry's place would block a reader that opened it to read.
  ASSERT_EQ(std::remove(path.c_str()), 0);
  ASSERT_EQ(mkfifo(path.c_str(), 0644), 0);
  KernelCache cache(dir_);
  ASSERT_TRUE(cache.GetOrCompile(Unit(kSource, "k"), kSm90a).ok());
  EXPECT_EQ(cache.stats().compiles, 1);
}

TEST_F(KernelCacheTest, ALimitOfZeroKeepsNothingOnDisk) {
  KernelCacheOptions options;
  options.disk_bytes = 0;
  KernelCache cache(dir_, options);
  ASSERT_TRUE(cache.GetOrCompile(Unit(kSource, "k"), kSm90a).ok());
  EXPECT_EQ(opendir(dir_.c_str()), nullptr);  // not even created
}

// One of the cache's temporaries not written to for an hour is removed when the directory is
// counted (its writer ended while writing); a recent one is left to its writer, and files
// that are not the cache's are left alone.
TEST_F(KernelCacheTest, AbandonedTemporariesAreRemoved) {
  mkdir(dir_.c_str(), 0755);
  const std::string entry = "0123456789abcdef-0123456789abcdef.cubin";
  const std::string old = absl::StrCat(dir_, "/", entry, ".tmp.1.2a.0"),
                    recent = absl::StrCat(dir_, "/", entry, ".tmp.2.2a.0"),
                    foreign = absl::StrCat(dir_, "/notes.tmp.bak");
  for (const std::string& path : {old, recent, foreign}) std::ofstream(path) << "partial";
  const struct timespec two_hours_ago[2] = {{time(nullptr) - 7200, 0}, {time(nullptr) - 7200, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, old.c_str(), two_hours_ago, 0), 0);
  ASSERT_EQ(utimensat(AT_FDCWD, foreign.c_str(), two_hours_ago, 0), 0);
  KernelCache cache(dir_);
  ASSERT_TRUE(cache.GetOrCompile(Unit(kSource, "k"), kSm90a).ok());  // a first write counts
  EXPECT_NE(access(old.c_str(), F_OK), 0);
  EXPECT_EQ(access(recent.c_str(), F_OK), 0);
  EXPECT_EQ(access(foreign.c_str(), F_OK), 0);
}

// Another process's entries count against the limit too: the directory is counted again
// every 16 writes, not only when this process's own writes pass the limit.
TEST_F(KernelCacheTest, TheLimitHoldsWithOtherWriters) {
  { ASSERT_TRUE(KernelCache(dir_).GetOrCompile(Unit(Variant(0), "k"), kSm90a).ok()); }
  std::ifstream first(EntryPath(), std::ios::binary | std::ios::ate);
  const int64_t entry = first.tellg();
  KernelCacheOptions options;
  options.disk_bytes = entry * 30;
  KernelCache cache(dir_, options);
  ASSERT_TRUE(cache.GetOrCompile(Unit(Variant(1), "k"), kSm90a).ok());  // counted: 2 entries
  for (int i = 0; i < 45; ++i) {  // another process's writes meanwhile
    std::ofstream(absl::StrCat(dir_, "/other", i, ".cubin")) << std::string(entry, 'x');
  }
  for (int i = 2; i < 17; ++i) {
    ASSERT_TRUE(cache.GetOrCompile(Unit(Variant(i), "k"), kSm90a).ok());
  }
  int64_t total = 0;
  DIR* d = opendir(dir_.c_str());
  while (dirent* e = d ? readdir(d) : nullptr) {
    struct stat st;
    if (stat(absl::StrCat(dir_, "/", e->d_name).c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      total += st.st_size;
    }
  }
  if (d) closedir(d);
  EXPECT_LE(total, options.disk_bytes);
  EXPECT_GT(cache.stats().disk_evictions, 0);
}

TEST_F(KernelCacheTest, CompileErrorsCarryTheLog) {
  KernelCache cache(dir_);
  auto out = cache.GetOrCompile(Unit("__global__ void broken( {", "broken"), kSm90a);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("NVRTC could not compile broken for sm_90a"),
            std::string::npos);
  EXPECT_NE(out.status().message().find("error"), std::string::npos);
}

}  // namespace
}  // namespace tessel::runtime
