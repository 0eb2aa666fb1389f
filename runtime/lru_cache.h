// LruCache: a map that holds at most `capacity` entries and evicts the least recently used.
// The plan, module and kernel caches use it, so that a program that runs thousands of
// distinct graphs holds memory flat. Not thread-safe: its owner locks.
#ifndef TESSEL_RUNTIME_LRU_CACHE_H_
#define TESSEL_RUNTIME_LRU_CACHE_H_

#include <cstdint>
#include <list>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace tessel::runtime {

struct LruCounters {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t evictions = 0;
};

template <typename K, typename V>
class LruCache {
 public:
  explicit LruCache(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // The entry for `key`, now the most recently used; null (a miss) if there is none.
  V* Find(const K& key) {
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++counters_.misses;
      return nullptr;
    }
    ++counters_.hits;
    entries_.splice(entries_.begin(), entries_, it->second);
    return &it->second->second;
  }

  // The entry for `key` without touching the order or the counters (a reader that shares the
  // cache with others may call it concurrently); null if there is none.
  const V* Peek(const K& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &it->second->second;
  }

  // Inserts or replaces the entry for `key` as the most recently used, evicting the least
  // recently used entries past capacity (their values are destroyed here).
  V& Put(K key, V value) {
    if (auto it = index_.find(key); it != index_.end()) {
      it->second->second = std::move(value);
      entries_.splice(entries_.begin(), entries_, it->second);
      return it->second->second;
    }
    entries_.emplace_front(std::move(key), std::move(value));
    index_.emplace(entries_.front().first, entries_.begin());
    while (entries_.size() > capacity_) {
      index_.erase(entries_.back().first);
      entries_.pop_back();
      ++counters_.evictions;
    }
    return entries_.front().second;
  }

  void Clear() {
    index_.clear();
    entries_.clear();
  }

  size_t size() const { return entries_.size(); }
  size_t capacity() const { return capacity_; }
  const LruCounters& counters() const { return counters_; }

 private:
  size_t capacity_;
  std::list<std::pair<K, V>> entries_;  // most recently used first
  absl::flat_hash_map<K, typename std::list<std::pair<K, V>>::iterator> index_;
  LruCounters counters_;
};

}  // namespace tessel::runtime

#endif  // TESSEL_RUNTIME_LRU_CACHE_H_
