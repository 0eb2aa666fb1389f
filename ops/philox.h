// The counter-based generator behind rand() and randn(): Philox-4x32-10 (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3", SC'11). Element i of a tensor made with
// seed s is a pure function of (s, i), so every device and any launch shape produce the
// same values. The specification, which the CUDA code generator reproduces:
//
//   key     = {lo32(s), hi32(s)},  counter = {lo32(i), hi32(i), 0, 0}
//   r       = Philox4x32-10(counter, key)
//   rand    = (r[0] >> 8) * 2^-24                                       in [0, 1)
//             in bf16 and f16 truncated to the type (RandMask), so still below 1
//   randn   = sqrtf(-2 logf(u1)) * cosf(2 pi u2), in float,
//             u1 = ((r[0] >> 8) + 1) * 2^-24 in (0, 1],  u2 = (r[1] >> 8) * 2^-24
#ifndef TESSEL_OPS_PHILOX_H_
#define TESSEL_OPS_PHILOX_H_

#include <array>
#include <cmath>
#include <cstdint>

#include "absl/base/casts.h"
#include "core/dtype.h"

namespace tessel {

inline std::array<uint32_t, 4> Philox4x32x10(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
    k = {k[0] + kW0, k[1] + kW1};
  }
  return c;
}

inline std::array<uint32_t, 4> PhiloxForElement(uint64_t seed, uint64_t index) {
  return Philox4x32x10({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0, 0},
                       {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

inline float UniformFromBits(uint32_t bits) {
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

// The bits of a rand() value's float that `dtype` keeps: the uniform truncated to the type's
// significant bits (bf16 8, f16 11), so that it stays below 1 (rounded to nearest, about one
// bf16 draw in 500 gave 1.0) and each of the type's values keeps the measure of the interval
// up to the next. The uniform is j 2^-24: clearing the float's low mantissa bits truncates it
// exactly (below f16's normal range j has at most 10 bits, which stay).
inline uint32_t RandMask(DType dtype) {
  if (dtype == DType::kBF16) return 0xffff0000u;
  if (dtype == DType::kF16) return 0xffffe000u;
  return 0xffffffffu;
}

inline float RandElement(uint64_t seed, uint64_t index, DType dtype) {
  const float u = UniformFromBits(PhiloxForElement(seed, index)[0]);
  return absl::bit_cast<float>(absl::bit_cast<uint32_t>(u) & RandMask(dtype));
}

inline float RandnElement(uint64_t seed, uint64_t index) {
  const std::array<uint32_t, 4> r = PhiloxForElement(seed, index);
  const float u1 = static_cast<float>((r[0] >> 8) + 1) * (1.0f / 16777216.0f);
  const float u2 = UniformFromBits(r[1]);
  constexpr float kTwoPi = 6.28318530717958647692f;
  return std::sqrt(-2.0f * std::log(u1)) * std::cos(kTwoPi * u2);
}

}  // namespace tessel

#endif  // TESSEL_OPS_PHILOX_H_
