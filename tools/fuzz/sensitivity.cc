#include "tools/fuzz/sensitivity.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "tools/fuzz/rng.h"

namespace tessel::fuzz {
namespace {

// A value of the perturbed replay.
struct Traced {
  Tensor value;       // with noise
  Tensor reference;   // computed without noise (the CPU's value)
  Tensor taint;       // kBool of value's shape, or empty: nothing tainted
  bool exact = true;  // computed bit-identically on every device (before noise)
  DType precision = DType::kI32;
};

// Coarser precision first: bf16 > f16 > f32 > exact (kI32 stands for exact). f64 counts as
// f32: the noise model works in f32 (the GPU tests check f64 to its own precision).
int Coarseness(DType d) {
  switch (d) {
    case DType::kBF16:
      return 3;
    case DType::kF16:
      return 2;
    case DType::kF32:
    case DType::kF64:
      return 1;
    default:
      return 0;
  }
}
DType Coarser(DType a, DType b) { return Coarseness(a) >= Coarseness(b) ? a : b; }

// Relative distance under which two values computed in `precision` may compare differently.
double Margin(DType precision) {
  switch (precision) {
    case DType::kBF16:
      return 0x1p-6;
    case DType::kF16:
      return 0x1p-9;
    default:
      return 0x1p-16;
  }
}

// Operations whose floating result is bit-identical on every device when their operands are.
bool PreservesExactness(OpKind op) {
  switch (GetOpInfo(op).category) {
    case OpCategory::kView:
    case OpCategory::kConcat:
      return true;
    default:
      break;
  }
  switch (op) {
    case OpKind::kInput:
    case OpKind::kFull:
    case OpKind::kArange:
    case OpKind::kNeg:
    case OpKind::kAbs:
    case OpKind::kRelu:
    case OpKind::kCast:
    case OpKind::kMaximum:
    case OpKind::kMinimum:
    case OpKind::kWhere:
    case OpKind::kMax:
    case OpKind::kMin:
    case OpKind::kFloor:
    case OpKind::kCeil:
    case OpKind::kRound:
    case OpKind::kTrunc:
    case OpKind::kSign:
    case OpKind::kFmod:  // exact in IEEE arithmetic; remainder adds one rounded sum
    case OpKind::kRemainder:
      return true;
    default:
      return ReadsOperandValues(op);  // bool results of exact operands
  }
}

// Where `x` lies within `margin` (relative, at least absolute) of an integer: rounding
// functions, truncation and remainders jump there.
Tensor NearInteger(const Tensor& x, double margin) {
  const Tensor frac = x - floor(x);
  return le(minimum(frac, 1.0 - frac), maximum(abs(x), 1.0) * margin);
}

Tensor F32(const Tensor& t) { return cast(t, DType::kF32); }
Tensor Scalar(double v) { return full({}, v, DType::kF32, Device::kCPU); }

Tensor Or(const Tensor& a, const Tensor& b, const Shape& shape) {
  if (!a.defined() && !b.defined()) return Tensor();
  if (!a.defined()) return broadcast_to(b, shape);
  if (!b.defined()) return broadcast_to(a, shape);
  return maximum(broadcast_to(a, shape), broadcast_to(b, shape));
}

// An f32 sum of `x` over the axes that reduction `line` reduces, kept as it keeps them.
Tensor SumAlike(const GraphLine& line, const Tensor& x) {
  GraphLine sum = line;
  sum.op = OpKind::kSum;
  sum.dtype = DType::kF32;
  return ApplyLine(sum, {x}, Device::kCPU);
}

Tensor TaintOrFalse(const Traced& t) {
  return t.taint.defined() ? t.taint : zeros(t.value.shape(), DType::kBool, Device::kCPU);
}

class PerturbedReplay {
 public:
  PerturbedReplay(uint64_t data_seed, const NoiseOptions& noise)
      : data_seed_(data_seed), noise_(noise) {}

  Traced Apply(const GraphLine& line, const std::vector<Traced>& in) {
    if (line.op == OpKind::kInput) {
      Traced t;
      t.value = InputValues(line.dtype, line.shape, data_seed_, inputs_++, Device::kCPU);
      t.reference = t.value;
      return t;
    }
    std::vector<Tensor> values, references;
    Traced out;
    bool moved = false;  // whether noise moved an operand
    for (const Traced& t : in) {
      values.push_back(t.value);
      references.push_back(t.reference);
      moved = moved || t.value.node_ptr() != t.reference.node_ptr();
      out.exact = out.exact && t.exact;
      out.precision = Coarser(out.precision, t.precision);
    }
    const Tensor clean = ApplyLine(line, values, Device::kCPU);
    out.reference = moved ? ApplyLine(line, references, Device::kCPU) : clean;
    const bool floating = IsFloating(clean.dtype());
    // A reduction of one element per result is that element on every device; one of none,
    // or a matmul over an empty extent, is a constant.
    const bool preserves = PreservesExactness(line.op) || IsDegenerateReduction(clean.node());
    out.exact = !floating || (out.exact && preserves) || CombinesNothing(clean.node());
    if (line.op == OpKind::kRand || line.op == OpKind::kRandn) out.exact = false;
    if (!out.exact && floating) out.precision = Coarser(out.precision, clean.dtype());
    // TF32 keeps f16's 10 mantissa bits of each operand: its products are f16-precise.
    if (!out.exact && IsTf32Matmul(clean.node())) {
      out.precision = Coarser(out.precision, DType::kF16);
    }
    // Operations that add no error of their own pass their operands' noise on unchanged; a
    // cast into 16 bits rounds, which may go either way.
    const bool adds_error = !preserves || (line.op == OpKind::kCast && IsHalfFloat(clean.dtype()));
    out.value = out.exact || !adds_error ? clean : AddNoise(line, in, clean);
    out.taint = Taint(line, in, out);
    if (line.op == OpKind::kDiv) divisions_.insert(line.name);
    if (line.op == OpKind::kCast && IsHalfFloat(line.dtype) &&
        divisions_.contains(line.operands.at(0))) {
      probabilities_.insert(line.name);
    }
    return out;
  }

 private:
  // Noise in [-1, 1] for each element of `y`, as NoiseOptions says. The simulated device errs
  // by a function of the value (a hash of it), as a real one does: equal values stay equal.
  Tensor Noise(const Tensor& y) {
    const Shape& shape = y.shape();
    if (noise_.kind == NoiseOptions::kSimulate) {
      const Tensor finite = minimum(maximum(F32(y), Scalar(-1e30)), Scalar(1e30));
      const Tensor h = sin(finite * 12.9898 + static_cast<double>(noise_.seed % 1000)) * 43758.5453;
      return (h - cast(cast(h, DType::kI32), DType::kF32)) * noise_.scale;
    }
    const Tensor u = rand(shape, SubSeed(noise_.seed, streams_++), DType::kF32, Device::kCPU);
    const Tensor magnitude = u * 0.5 + 0.5;
    if (noise_.kind != NoiseOptions::kMixed) {
      return noise_.kind == NoiseOptions::kUp ? magnitude : -magnitude;
    }
    const Tensor coin = rand(shape, SubSeed(noise_.seed, streams_++), DType::kF32, Device::kCPU);
    return magnitude * (cast(lt(coin, Scalar(0.5)), DType::kF32) * 2.0 - 1.0);
  }

  Tensor AddNoise(const GraphLine& line, const std::vector<Traced>& in, const Tensor& y) {
    // Every term pushes the value the same way (up in one replay, down in the other), so that
    // no two cancel: relative to the value, for sums and matmuls also to the sum of the
    // magnitudes of their terms (another order of addition), kept finite so that an infinity
    // stays one.
    const Tensor y32 = F32(y);
    Tensor magnitude = abs(y32) * 0x1p-20;
    Tensor terms;
    double count = 1;  // terms per result
    bool tf32 = false, split_tf32 = false, attention = false;
    switch (line.op) {
      case OpKind::kSum:
      case OpKind::kMean: {
        GraphLine of_terms = line;
        of_terms.dtype = DType::kF32;
        terms = ApplyLine(of_terms, {abs(F32(in[0].value))}, Device::kCPU);
        count = static_cast<double>(in[0].value.numel()) / std::max<int64_t>(1, y.numel());
        break;
      }
      case OpKind::kProd:  // each factor's rounding: a relative error that grows with their count
        magnitude = magnitude + abs(y32) * (4 * static_cast<double>(in[0].value.numel()) /
                                            std::max<double>(1, y.numel()) * 0x1p-23);
        break;
      case OpKind::kMatmul: {
        terms = ApplyLine(line, {abs(F32(in[0].value)), abs(F32(in[1].value))}, Device::kCPU);
        const Shape& a = in[0].value.shape();
        count = static_cast<double>(a[a.rank() - 1]);
        tf32 = IsTf32Matmul(y.node());
        split_tf32 = IsSplitTf32Matmul(y.node());
        attention = AttentionOutput(line);
        break;
      }
      default:
        break;
    }
    if (terms.defined()) {
      // Rounding errors of a long sum grow with about the square root of its length.
      // TF32 rounds each operand to 11 significant bits: 2^-11 of the terms (2^12 ulps);
      // three TF32 products leave about 2^-21 (4 ulps) of each, and tensor cores may add
      // with truncation, which grows with the length when the terms share a sign.
      double ulps = std::max(tf32 ? 0x1p12 : split_tf32 ? 64.0 : 16.0, 4 * std::sqrt(count));
      if (split_tf32) ulps += count / 4;
      // An attention kernel rounds the probabilities to 16 bits before normalizing them, the
      // CPU after: two roundings of each term, each up to half an ulp of it, so the terms may
      // differ by a whole 16-bit ulp (2^-7 of a bf16 value at most, 2^-10 of an f16 one).
      if (attention) {
        ulps = std::max(ulps, line.dtype == DType::kBF16 ? 0x1p16 : 0x1p13);
      }
      magnitude = magnitude + minimum(terms, Scalar(1e30)) * (ulps * 0x1p-23);
    }
    // A 16-bit result may be one ulp off wherever the value before rounding lies near the
    // middle between two. The largest ulp of the value's binade (2^-7 of it for bf16, 2^-10
    // for f16) times the noise's 0.5 to 1 moves every element by one ulp or two. Subnormal
    // results have fewer bits: they move by their smallest steps.
    if (y.dtype() == DType::kBF16) magnitude = magnitude + abs(y32) * 0x1p-7 + 0x1p-132;
    if (y.dtype() == DType::kF16) magnitude = magnitude + abs(y32) * 0x1p-10 + 0x1p-24;
    if (y.dtype() == DType::kF32) magnitude = magnitude + 0x1p-146;
    return cast(y32 + minimum(magnitude, Scalar(1e30)) * Noise(y), y.dtype());
  }

  // Where an operation of computed operands jumps: rounding near integers (round: near
  // halves), sign and truth values near 0, isinf and isfinite near overflow, remainders where
  // a / b is near an integer or b near 0, atan2 across the negative x axis. Empty where `op`
  // has no such place.
  static Tensor Discontinuities(OpKind op, const std::vector<Traced>& in, double margin) {
    const Tensor a = F32(in[0].value);
    const Tensor b = in.size() > 1 ? F32(in[1].value) : Tensor();
    auto near_zero = [&](const Tensor& x) { return le(abs(x), Scalar(margin)); };
    switch (op) {
      case OpKind::kFloor:
      case OpKind::kCeil:
      case OpKind::kTrunc:
        return NearInteger(a, margin);
      case OpKind::kRound:
        return NearInteger(a + 0.5, margin);
      case OpKind::kSign:
      case OpKind::kLogicalNot:
        return near_zero(a);
      case OpKind::kDiv:
        // A computed divisor near 0 is mostly rounding: exactly 0 on one device (0 / 0 is NaN)
        // and 1e-8 on the other (x / x where x = gelu of a large negative value, whose 1 +
        // erf cancels: seed 13735101).
        return near_zero(b);
      case OpKind::kLogicalAnd:
      case OpKind::kLogicalOr:
      case OpKind::kLogicalXor:
        return maximum(near_zero(a), near_zero(b));
      case OpKind::kIsInf:
      case OpKind::kIsFinite:
        return ge(abs(a), Scalar(0x1p127));
      case OpKind::kRemainder:
      case OpKind::kFmod: {
        // a / b carries both operands' errors, which cancellation may have made large: a
        // wider margin than one value's. And a result much smaller than a keeps a's absolute
        // error: relative to itself, |a| / |r| times larger (seed 8026109: a remainder 1/100
        // of its operand, then an fmod by it).
        const Tensor r = op == OpKind::kRemainder ? remainder(a, b) : fmod(a, b);
        return maximum(maximum(NearInteger(a / b, 16 * margin), near_zero(b)),
                       lt(abs(r) * 64.0, abs(a)));
      }
      case OpKind::kSin:
      case OpKind::kCos:
        // Periodic: where the argument's error can reach a sizeable part of a period, the
        // result is noise of the error (a cumprod of matmul results, then sin: seed 7112901;
        // four replays could all move such an element little by chance).
        return ge(abs(a) * margin, Scalar(0.125));
      case OpKind::kAtan2:  // and near the origin, where every angle is close
        return maximum(logical_and(le(abs(a), (abs(a) + abs(b)) * margin), le(b, Scalar(0))),
                       logical_and(near_zero(a), near_zero(b)));
      default:
        return Tensor();
    }
  }

  // Where the noise moved an operand of `op` at least as far as the place where op jumps is
  // from its reference value (a sum near 0 of attention outputs, exactly 0 on one device,
  // behind an abs: seed 24313320; the noise there exceeds the margin of the precision). Empty
  // where `op` has no such place.
  static Tensor NoiseReachesJump(OpKind op, DType result, const std::vector<Traced>& in) {
    // `ref` (a function of the operands without noise) lies no further from the jump (0, or
    // the nearest integer) than the noise moved it to `noisy`.
    auto reaches = [](const Tensor& ref, const Tensor& noisy, bool integers) {
      const Tensor distance = integers ? minimum(ref - floor(ref), ceil(ref) - ref) : abs(ref);
      return le(distance, abs(noisy - ref));
    };
    auto ref = [&](int i) { return F32(in[i].reference); };
    auto noisy = [&](int i) { return F32(in[i].value); };
    if (IsComparison(op)) return reaches(ref(0) - ref(1), noisy(0) - noisy(1), false);
    switch (op) {
      case OpKind::kLogicalNot:
      case OpKind::kSign:
      case OpKind::kSqrt:
      case OpKind::kRsqrt:
      case OpKind::kLog:
      case OpKind::kPow:  // the base: NaN, a number or infinity
        return reaches(ref(0), noisy(0), false);
      case OpKind::kLog1p:
        return reaches(ref(0) + 1.0, noisy(0) + 1.0, false);
      case OpKind::kDiv:  // through infinity
        return reaches(ref(1), noisy(1), false);
      case OpKind::kLogicalAnd:
      case OpKind::kLogicalOr:
      case OpKind::kLogicalXor:
        return logical_or(reaches(ref(0), noisy(0), false), reaches(ref(1), noisy(1), false));
      case OpKind::kFloor:
      case OpKind::kCeil:
      case OpKind::kTrunc:
        return reaches(ref(0), noisy(0), true);
      case OpKind::kRound:
        return reaches(ref(0) + 0.5, noisy(0) + 0.5, true);
      case OpKind::kRemainder:
      case OpKind::kFmod:
        return reaches(ref(0) / ref(1), noisy(0) / noisy(1), true);
      case OpKind::kCast:
        if (!IsFloating(result)) return reaches(ref(0), noisy(0), result != DType::kBool);
        return Tensor();
      default:
        return Tensor();
    }
  }

  // Every element fragile where any operand has a fragile one.
  static Tensor AnyFragile(const std::vector<Traced>& in, const Shape& shape) {
    for (const Traced& x : in) {
      if (x.taint.defined()) return full(shape, 1, DType::kBool, Device::kCPU);
    }
    return Tensor();
  }

  Tensor Taint(const GraphLine& line, const std::vector<Traced>& in, const Traced& out) {
    const Shape& shape = out.value.shape();
    const OpInfo& info = GetOpInfo(line.op);
    switch (info.category) {
      case OpCategory::kSource:
        return Tensor();
      case OpCategory::kView:
        return in[0].taint.defined() ? ApplyLine(line, {in[0].taint}, Device::kCPU) : Tensor();
      case OpCategory::kConcat: {
        std::vector<Tensor> parts;
        bool any = false;
        for (const Traced& t : in) {
          any = any || t.taint.defined();
          parts.push_back(TaintOrFalse(t));
        }
        return any ? ApplyLine(line, parts, Device::kCPU) : Tensor();
      }
      case OpCategory::kReduce: {
        if (in[0].value.numel() == 0) return Tensor();
        Tensor t;
        if (in[0].taint.defined()) {
          GraphLine any = line;
          any.op = OpKind::kMax;
          t = ApplyLine(any, {in[0].taint}, Device::kCPU);
        }
        // A sum whose terms' magnitudes pass f32's range: the GPU's f32 accumulator may
        // overflow to infinity where the CPU's double does not (a mean of squares of bf16
        // powers: seed 728136).
        const bool sum = line.op == OpKind::kSum || line.op == OpKind::kMean;
        if (sum && IsFloating(in[0].value.dtype())) {
          const Tensor terms = SumAlike(line, abs(F32(in[0].value)));
          t = Or(t, ge(terms, Scalar(0x1p127)), shape);
        }
        if (line.op == OpKind::kProd && IsFloating(in[0].value.dtype())) {
          // Partial products in f32 (the GPU) may overflow or underflow where the CPU's double
          // does not: where the factors above 1 could reach 2^127 or those below 1 2^-126.
          const Tensor l = log(abs(F32(in[0].value)));
          const Tensor up = SumAlike(line, maximum(l, 0.0));
          const Tensor down = SumAlike(line, minimum(l, 0.0));
          t = Or(t, maximum(ge(up, Scalar(126 * M_LN2)), le(down, Scalar(-125 * M_LN2))), shape);
        }
        return t;
      }
      case OpCategory::kMatmul: {
        Tensor t;
        const Traced& a = in[0];
        const Traced& b = in[1];
        if (a.taint.defined() && a.value.numel() > 0) t = Or(t, max(a.taint, {-1}, true), shape);
        if (b.taint.defined() && b.value.numel() > 0) t = Or(t, max(b.taint, {-2}, true), shape);
        return t;
      }
      case OpCategory::kIndex:
        if (line.op == OpKind::kGather) {
          // Fragile where the index is, or where it points at a fragile element.
          Tensor t = in[1].taint;
          if (in[0].taint.defined()) {
            t = Or(t, ApplyLine(line, {in[0].taint, in[1].value}, Device::kCPU), shape);
          }
          return t;
        }
        return AnyFragile(in, shape);
      case OpCategory::kScatter:  // a sum per target: fragile anywhere when any term is
        return AnyFragile(in, shape);
      case OpCategory::kScan: {
        const int axis = static_cast<int>(line.attrs.ints.at(0));
        // A running value is fragile from the first fragile term on.
        Tensor t = in[0].taint.defined()
                       ? gt(cumsum(cast(in[0].taint, DType::kI32), axis), Scalar(0))
                       : Tensor();
        const Tensor& x = in[0].value;
        if (line.op == OpKind::kCumprod && IsFloating(x.dtype()) && x.numel() > 0) {
          // The GPU's scan multiplies in another order: where a partial product could pass
          // the range of the type it computes in (f64, else f32), one order may overflow or
          // underflow and another not (f64 near 2^1024: seed 15032950).
          const bool f64 = x.dtype() == DType::kF64;
          // (A zero factor counts 1: the products after it are 0 in any order, unless
          // something overflows, which `up` catches.)
          const Tensor x64 = cast(x, DType::kF64);
          const Tensor l = where(eq(x64, 0.0), 0.0, log(abs(x64)));
          const Tensor up = cumsum(maximum(l, 0.0), axis);
          const Tensor down = cumsum(minimum(l, 0.0), axis);
          t = Or(t,
                 maximum(ge(up, Scalar((f64 ? 1022 : 126) * M_LN2)),
                         le(down, Scalar((f64 ? -1021 : -125) * M_LN2))),
                 shape);
        }
        return t;
      }
      case OpCategory::kSort: {
        // A line's order moves wherever one of its values may, or where two of its computed
        // values nearly tie (seed 9513173): the whole line is fragile.
        const int axis = static_cast<int>(line.attrs.ints.at(0));
        const Tensor& x = in[0].value;
        if (x.numel() == 0) return Tensor();
        Tensor t = in[0].taint.defined() ? max(in[0].taint, {axis}, true) : Tensor();
        if (!in[0].exact && x.shape()[axis] > 1) {
          const int64_t n = x.shape()[axis];
          const Tensor sorted = sort(F32(x), axis).first;
          const Tensor a = slice(sorted, axis, 0, n - 1), b = slice(sorted, axis, 1, n);
          const double margin = Margin(in[0].precision);
          const Tensor ties =
              max(le(abs(a - b), (abs(a) + abs(b)) * margin + margin), {axis}, true);
          t = t.defined() ? logical_or(t, ties) : ties;
        }
        return t.defined() ? Or(Tensor(), t, shape) : Tensor();
      }
      case OpCategory::kElementwise:
        break;
    }
    Tensor t;
    bool operands_exact = true;
    DType precision = DType::kI32;
    for (const Traced& x : in) {
      t = Or(t, x.taint, shape);
      operands_exact = operands_exact && x.exact;
      precision = Coarser(precision, x.precision);
    }
    if (operands_exact) return t;
    if (Tensor reached = NoiseReachesJump(line.op, out.value.dtype(), in); reached.defined()) {
      t = Or(t, reached, shape);
    }
    const double margin = Margin(precision);
    if (IsComparison(line.op)) {
      const Tensor a = F32(in[0].value), b = F32(in[1].value);
      // Also within `margin` of each other absolutely: a value near 0 is mostly rounding
      // (log(1 + e) is exactly 0 on one device where e rounds away, 1e-7 on the other: seed
      // 725937), as for a cast to bool below.
      return Or(t, le(abs(a - b), (abs(a) + abs(b)) * margin + margin), shape);
    }
    if (Tensor jumps = Discontinuities(line.op, in, margin); jumps.defined()) {
      return Or(t, jumps, shape);
    }
    if (line.op == OpKind::kPow && IsFloating(out.value.dtype())) {
      // A negative or zero base: the result jumps (a number, NaN, infinity) as the exponent
      // crosses an integer or zero.
      return Or(t, le(F32(in[0].value), Scalar(0)), shape);
    }
    if (line.op == OpKind::kCast && IsFloating(in[0].value.dtype())) {
      const Tensor x = F32(in[0].value);
      // Near zero, a computed value is mostly rounding: whether it is exactly 0 is fragile.
      if (out.value.dtype() == DType::kBool) return Or(t, le(abs(x), Scalar(0x1p-16)), shape);
      if (!IsFloating(out.value.dtype())) {
        // Truncation toward zero: near an integer, or near the ends of the range.
        const Tensor frac = abs(x - cast(cast(x, DType::kI64), DType::kF32));
        const Tensor near = minimum(frac, 1.0 - frac);
        const double end = out.value.dtype() == DType::kI32 ? 2.1e9 : 9.2e18;
        return Or(t, maximum(le(near, maximum(abs(x), 1.0) * margin), ge(abs(x), Scalar(end))),
                  shape);
      }
    }
    return t;
  }

  // A matmul the GPU may run as an attention kernel's output (fusion/attention.h): a 16-bit
  // cast of a division (the softmax's normalization) times v, of head dimension a multiple
  // of 8 up to 128.
  bool AttentionOutput(const GraphLine& line) const {
    const int64_t d = line.shape[line.shape.rank() - 1];
    return probabilities_.contains(line.operands.at(0)) && d <= 128 && d % 8 == 0;
  }

  uint64_t data_seed_;
  absl::flat_hash_set<std::string> divisions_;      // lines so far that divide
  absl::flat_hash_set<std::string> probabilities_;  // ... and their casts to 16 bits
  NoiseOptions noise_;
  int inputs_ = 0;
  uint64_t streams_ = 0;
};

}  // namespace

absl::StatusOr<Perturbed> ReplayPerturbed(const std::vector<Statement>& program, uint64_t data_seed,
                                          const NoiseOptions& noise) {
  PerturbedReplay replay(data_seed, noise);
  absl::flat_hash_map<std::string, Traced> values;
  Perturbed result;
  try {
    for (const Statement& s : program) {
      if (s.kind == Statement::kRealize) continue;
      std::vector<Traced> in;
      for (const std::string& name : s.kind == Statement::kValue ? s.line.operands : s.names) {
        auto it = values.find(name);
        if (it == values.end()) return absl::InvalidArgumentError(absl::StrCat("unknown %", name));
        in.push_back(it->second);
      }
      if (s.kind == Statement::kValue) {
        values[s.line.name] = replay.Apply(s.line, in);
        continue;
      }
      std::vector<Tensor> all;
      for (const Traced& t : in) {
        result.outputs.push_back(t.value);
        result.fragile.push_back(TaintOrFalse(t));
        result.precision.push_back(t.precision);
      }
      all = result.outputs;
      all.insert(all.end(), result.fragile.begin(), result.fragile.end());
      realize(all);
    }
  } catch (const Error& e) {
    return absl::InternalError(absl::StrCat("perturbed replay: ", e.what()));
  }
  return result;
}

}  // namespace tessel::fuzz
