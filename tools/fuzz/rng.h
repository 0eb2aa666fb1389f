// The fuzzer's random numbers: a splitmix64 stream, so that a seed names the same program
// and the same data on every machine and standard library.
#ifndef TESSEL_TOOLS_FUZZ_RNG_H_
#define TESSEL_TOOLS_FUZZ_RNG_H_

#include <cstdint>
#include <vector>

namespace tessel::fuzz {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0.
  int64_t Below(int64_t n) { return static_cast<int64_t>(Next() % static_cast<uint64_t>(n)); }
  // Uniform in [lo, hi].
  int64_t Between(int64_t lo, int64_t hi) { return lo + Below(hi - lo + 1); }
  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  bool Chance(double p) { return Unit() < p; }
  // An index drawn with the given relative weights.
  int Weighted(const std::vector<int>& weights) {
    int total = 0;
    for (int w : weights) total += w;
    int64_t r = Below(total);
    for (size_t i = 0; i < weights.size(); ++i) {
      if (r < weights[i]) return static_cast<int>(i);
      r -= weights[i];
    }
    return static_cast<int>(weights.size()) - 1;
  }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Below(static_cast<int64_t>(items.size()))];
  }

 private:
  uint64_t state_;
};

// A seed for the `index`-th stream derived from `seed` (inputs, noise), independent of others.
inline uint64_t SubSeed(uint64_t seed, uint64_t index) {
  Rng r(seed ^ (index * 0xd1b54a32d192ed03ull));
  r.Next();
  return r.Next();
}

}  // namespace tessel::fuzz

#endif  // TESSEL_TOOLS_FUZZ_RNG_H_
