#include "tools/fuzz/compare.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessel::fuzz {
namespace {

// Whether a and b differ in kind: one NaN and the other not, or an infinity against anything
// but the same infinity.
bool KindDiffers(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) != std::isnan(b);
  return (std::isinf(a) || std::isinf(b)) && a != b;
}

std::string Position(int64_t i, const Shape& shape) {
  std::vector<int64_t> index(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    index[d] = shape[d] > 0 ? i % shape[d] : 0;
    i = shape[d] > 0 ? i / shape[d] : 0;
  }
  return absl::StrCat("[", absl::StrJoin(index, ","), "]");
}

}  // namespace

double RelativeTolerance(DType precision) {
  switch (precision) {
    case DType::kBF16:
      return 0x1p-4;
    case DType::kF16:
      return 0x1p-7;
    case DType::kF32:
    case DType::kF64:
      return 0x1p-13;
    default:
      return 0;
  }
}

OutputDiff CompareOutput(const OutputValues& v, const Shape& shape, DType precision) {
  OutputDiff diff;
  const double rtol = RelativeTolerance(precision);
  double squares = 0;
  int64_t finite = 0;
  for (double r : v.reference) {
    if (std::isfinite(r)) {
      squares += r * r;
      ++finite;
    }
  }
  const double scale = finite > 0 ? std::sqrt(squares / finite) : 0;
  // Elements the noise happened not to move may still differ on the device by about what the
  // noise moves the output's elements typically: the median movement under each replay is a
  // floor for the tolerance.
  double floor = 0;
  for (const std::vector<double>& p : v.under_noise) {
    std::vector<double> moves;
    for (size_t i = 0; i < p.size(); ++i) {
      const double d = std::fabs(p[i] - v.reference[i]);
      if (std::isfinite(d)) moves.push_back(d);
    }
    if (moves.empty() || rtol == 0) continue;
    std::nth_element(moves.begin(), moves.begin() + moves.size() / 2, moves.end());
    floor = std::max(floor, moves[moves.size() / 2]);
  }
  for (size_t i = 0; i < v.reference.size(); ++i) {
    const double r = v.reference[i], g = v.device[i];
    const double tol = rtol > 0 ? rtol * (std::fabs(r) + scale) + floor + 1e-30 : 0;
    bool fragile = v.tainted[i] != 0;
    for (const std::vector<double>& p : v.under_noise) {
      fragile = fragile || KindDiffers(p[i], r) || std::fabs(p[i] - r) > 0.5 * tol;
    }
    if (fragile) {
      ++diff.fragile;
      continue;
    }
    ++diff.compared;
    const bool bad = KindDiffers(g, r) || std::fabs(g - r) > tol;
    if (bad && diff.mismatched++ == 0) {
      diff.first = absl::StrCat("at ", Position(static_cast<int64_t>(i), shape), ": expected ", r,
                                ", got ", g, " (tolerance ", tol, ")");
    }
  }
  return diff;
}

}  // namespace tessel::fuzz
