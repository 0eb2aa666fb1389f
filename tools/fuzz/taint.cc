#include "tools/fuzz/taint.h"

#include <cmath>

namespace tessel::fuzz {
namespace {

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

// Where `x` lies within `margin` (relative, at least absolute) of an integer: rounding
// functions, truncation and remainders jump there.
Tensor NearInteger(const Tensor& x, double margin) {
  const Tensor frac = x - floor(x);
  return le(minimum(frac, 1.0 - frac), maximum(abs(x), 1.0) * margin);
}

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

// Where an operation of computed operands jumps: rounding near integers (round: near
// halves), sign and truth values near 0, isinf and isfinite near overflow, remainders where
// a / b is near an integer or b near 0, atan2 across the negative x axis. Empty where `op`
// has no such place.
Tensor Discontinuities(OpKind op, const std::vector<Traced>& in, double margin) {
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
Tensor NoiseReachesJump(OpKind op, DType result, const std::vector<Traced>& in) {
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
Tensor AnyFragile(const std::vector<Traced>& in, const Shape& shape) {
  for (const Traced& x : in) {
    if (x.taint.defined()) return full(shape, 1, DType::kBool, Device::kCPU);
  }
  return Tensor();
}

}  // namespace

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
      Tensor t = in[0].taint.defined() ? gt(cumsum(cast(in[0].taint, DType::kI32), axis), Scalar(0))
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
        const Tensor ties = max(le(abs(a - b), (abs(a) + abs(b)) * margin + margin), {axis}, true);
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

DType Coarser(DType a, DType b) { return Coarseness(a) >= Coarseness(b) ? a : b; }

Tensor F32(const Tensor& t) { return cast(t, DType::kF32); }
Tensor Scalar(double v) { return full({}, v, DType::kF32, Device::kCPU); }

Tensor TaintOrFalse(const Traced& t) {
  return t.taint.defined() ? t.taint : zeros(t.value.shape(), DType::kBool, Device::kCPU);
}

}  // namespace tessel::fuzz
