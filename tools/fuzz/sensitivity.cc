#include "tools/fuzz/sensitivity.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "tools/fuzz/rng.h"
#include "tools/fuzz/taint.h"

namespace tessel::fuzz {
namespace {

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
    // middle between two, beside what its operands moved. The largest ulp of the value's
    // binade (2^-7 of it for bf16, 2^-10 for f16) times 1 to 1.5 (the noise's 0.5 to 1,
    // plus a half) moves every element by one ulp of its binade or more, in either
    // direction: with 0.5 to 1 alone, a value at a power of two moved up by as little as half
    // the ulp above it, and a layer norm of erf(attention output) on an H100 moved 2.5 times
    // further than any replay (fuzz seed 38100240). The checker's self-check (`--simulate=0.5`,
    // 1,000 programs from 640000000 and from 650000000) then failed 4 and 3 times instead of
    // 7 and 5, leaving out 6.81 and 10.69% of the elements instead of 6.38 and 10.80%.
    // Subnormal results have fewer bits: they move by their smallest steps.
    const Tensor noise = Noise(y);
    Tensor step;  // the 16-bit half ulp, signed as the noise
    if (y.dtype() == DType::kBF16) {
      magnitude = magnitude + abs(y32) * 0x1p-7 + 0x1p-132;
      step = abs(y32) * 0x1p-8;
    }
    if (y.dtype() == DType::kF16) {
      magnitude = magnitude + abs(y32) * 0x1p-10 + 0x1p-24;
      step = abs(y32) * 0x1p-11;
    }
    if (y.dtype() == DType::kF32) magnitude = magnitude + 0x1p-146;
    Tensor moved = y32 + minimum(magnitude, Scalar(1e30)) * noise;
    // (Not on the simulated device of the checker's self-check, which errs as a device does.)
    if (step.defined() && noise_.kind != NoiseOptions::kSimulate) {
      moved = moved + minimum(step, Scalar(1e30)) * sign(noise);
    }
    return cast(moved, y.dtype());
  }

  // A matmul the GPU may run as an attention kernel's output (fusion/attention.h): a 16-bit
  // cast of a division (the softmax's normalization) times v, of head dimension a multiple
  // of 8 up to 256.
  bool AttentionOutput(const GraphLine& line) const {
    const int64_t d = line.shape[line.shape.rank() - 1];
    return probabilities_.contains(line.operands.at(0)) && d <= 256 && d % 8 == 0;
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
