#include "runtime/lru_cache.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"

namespace tessel::runtime {
namespace {

TEST(LruCacheTest, EvictsTheLeastRecentlyUsed) {
  LruCache<std::string, int> cache(2);
  cache.Put("a", 1);
  cache.Put("b", 2);
  ASSERT_NE(cache.Find("a"), nullptr);  // b is now the least recently used
  cache.Put("c", 3);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Find("b"), nullptr);
  EXPECT_EQ(*cache.Find("a"), 1);
  EXPECT_EQ(*cache.Find("c"), 3);
  EXPECT_EQ(cache.counters().evictions, 1);
  EXPECT_EQ(cache.counters().hits, 3);
  EXPECT_EQ(cache.counters().misses, 1);
}

TEST(LruCacheTest, ReplacingRenewsAndEvictedValuesAreDestroyed) {
  auto value = std::make_shared<int>(7);
  std::weak_ptr<int> watch = value;
  LruCache<int, std::shared_ptr<int>> cache(1);
  cache.Put(1, std::move(value));
  cache.Put(1, std::make_shared<int>(8));
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(**cache.Find(1), 8);
  cache.Put(2, std::make_shared<int>(9));
  EXPECT_EQ(cache.Find(1), nullptr);
  EXPECT_EQ(cache.size(), 1u);
  cache.Clear();
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace tessel::runtime
