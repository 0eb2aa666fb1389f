// A stable 64-bit FNV-1a hash: the same in every process and on every machine, which
// absl::Hash (seeded per process) is not. Kernel names and disk cache keys use it.
#ifndef TESSEL_CORE_STABLE_HASH_H_
#define TESSEL_CORE_STABLE_HASH_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace tessel {

inline uint64_t StableHash(absl::string_view data, uint64_t seed = 0xcbf29ce484222325ull) {
  uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace tessel

#endif  // TESSEL_CORE_STABLE_HASH_H_
