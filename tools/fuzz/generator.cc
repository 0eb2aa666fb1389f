#include "tools/fuzz/generator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tools/fuzz/generator_internal.h"

namespace tessel::fuzz {
namespace internal {

std::string Generator::Run() {
  const int inputs = static_cast<int>(rng_.Between(1, 3));
  for (int i = 0; i < inputs; ++i) NewInput(RandomDType(), RandomShape());
  const int steps = static_cast<int>(rng_.Between(1, o_.max_steps));
  for (int i = 0; i < steps; ++i) Step();
  writer_.Return(Outputs());
  return writer_.text();
}

DType Generator::RandomDType() {
  static const std::vector<DType> kinds = {DType::kF32,  DType::kBF16, DType::kF16, DType::kI32,
                                           DType::kBool, DType::kI64,  DType::kF64};
  return kinds[rng_.Weighted({40, 20, 15, 15, 10, 6, 6})];
}

DType Generator::RandomFloat() {
  static const std::vector<DType> kinds = {DType::kF32, DType::kBF16, DType::kF16, DType::kF64};
  return kinds[rng_.Weighted({50, 30, 20, 8})];
}

int64_t Generator::RandomExtent() {
  static const std::vector<int64_t> odd = {3, 5, 7, 9, 13, 17, 31, 33, 63, 65};
  static const std::vector<int64_t> pow2 = {16, 32, 64, 128, 256, 512};
  static const std::vector<int64_t> big = {100,  127,  128,  129,   255,   256,   257,
                                           500,  1000, 1024, 2048,  4097,  16384, 16385,
                                           1000, 4096, 8192, 20000, 32768, 65536, 262144};
  switch (rng_.Weighted({20, 2, 30, 15, 13, 20})) {
    case 0:
      return 1;
    case 1:
      return 0;
    case 2:
      return rng_.Between(2, 8);
    case 3:
      return rng_.Pick(odd);
    case 4:
      return rng_.Pick(pow2);
    default:
      return rng_.Pick(big);
  }
}

// The elements of `s` with its size-0 axes counted as 1: an empty value of huge other
// extents still makes big values when reduced over its empty axis. In double: the
// product of random extents may overflow.
double Generator::Footprint(const Shape& s) {
  double n = 1;
  for (int64_t d : s.dims()) n *= static_cast<double>(std::max<int64_t>(d, 1));
  return n;
}

// Halves the largest extents until the shape fits the element budget.
Shape Generator::Fit(Shape s) {
  while (Footprint(s) > static_cast<double>(o_.max_elements)) {
    int largest = 0;
    for (int d = 1; d < s.rank(); ++d) largest = s[d] > s[largest] ? d : largest;
    s[largest] = (s[largest] + 1) / 2;
  }
  return s;
}

Shape Generator::RandomShape() {
  const int rank = rng_.Weighted({4, 16, 30, 26, 14, 6, 4});
  Shape::Dims dims;
  for (int d = 0; d < rank; ++d) dims.push_back(RandomExtent());
  return Fit(Shape(dims));
}

Tensor Generator::NewInput(DType dtype, const Shape& shape) {
  Tensor t = from_vector(std::vector<float>(shape.numel()), shape, dtype, Device::kCPU);
  inputs_.push_back(t);
  Add(t);
  return t;
}

void Generator::Add(const Tensor& t) {
  if (Footprint(t.shape()) > static_cast<double>(o_.max_elements)) return;
  for (const Tensor& p : pool_) {
    if (&p.node() == &t.node()) return;
  }
  pool_.push_back(t);
}

// A value to work on: the newest most of the time, so that chains form.
Tensor Generator::Pick() {
  if (rng_.Chance(0.55)) return pool_.back();
  return rng_.Pick(pool_);
}

Tensor Generator::Use(const Tensor& t) {
  consumed_.insert(&t.node());
  return t;
}

Tensor Generator::PickFloating() {
  Tensor x = Pick();
  return IsFloating(x.dtype()) ? x : cast(Use(x), RandomFloat());
}

Tensor Generator::PickNonBool() {
  Tensor x = Pick();
  return x.dtype() != DType::kBool ? x : cast(Use(x), rng_.Chance(0.5) ? DType::kF32 : DType::kI32);
}

// A shape that broadcasts with `s`: itself, with axes set to 1, a suffix, a scalar, or
// with leading axes added.
Shape Generator::BroadcastPartner(const Shape& s) {
  Shape::Dims dims = s.dims();
  switch (rng_.Weighted({40, 25, 15, 10, 10})) {
    case 0:
      break;
    case 1:
      for (int64_t& d : dims) d = rng_.Chance(0.5) ? 1 : d;
      break;
    case 2:
      dims.erase(dims.begin(), dims.begin() + rng_.Between(0, static_cast<int64_t>(dims.size())));
      break;
    case 3:
      dims.clear();
      break;
    default:
      dims.insert(dims.begin(), rng_.Between(1, 3));
      break;
  }
  return Fit(Shape(dims));
}

// A second operand for `x`: a value of the program that broadcasts with it, or a new input.
Tensor Generator::Partner(const Tensor& x) {
  if (rng_.Chance(0.4)) {
    std::vector<Tensor> matches;
    for (const Tensor& p : pool_) {
      absl::StatusOr<Shape> s = BroadcastShapes(p.shape(), x.shape());
      if (s.ok() && s->numel() <= o_.max_elements) matches.push_back(p);
    }
    if (!matches.empty()) return rng_.Pick(matches);
  }
  const DType dtype = rng_.Chance(0.6) ? x.dtype() : RandomDType();
  return NewInput(dtype, BroadcastPartner(x.shape()));
}

double Generator::RandomScalar() {
  static const std::vector<double> values = {0, 1, -1, 0.5, 2, 3, -2.5, 1e-3, 100, 0.1, 7};
  return rng_.Chance(0.8) ? rng_.Pick(values) : rng_.Unit() * 8 - 4;
}

std::vector<int> Generator::RandomAxes(int rank, bool allow_empty) {
  std::vector<int> axes;
  for (int d = 0; d < rank; ++d) {
    if (rng_.Chance(0.4)) axes.push_back(rng_.Chance(0.3) ? d - rank : d);
  }
  if (axes.empty() && !allow_empty && rank > 0) axes.push_back(static_cast<int>(rng_.Below(rank)));
  return axes;
}

int Generator::RandomAxis(int rank) {
  const int axis = static_cast<int>(rng_.Below(rank));
  return rng_.Chance(0.3) ? axis - rank : axis;
}

void Generator::Step() {
  using StepFn = void (Generator::*)();
  static const std::vector<StepFn> steps = {
      &Generator::Unary,      &Generator::Binary,         &Generator::WithScalar,
      &Generator::Compare,    &Generator::Cast,           &Generator::Reduce,
      &Generator::Normalize,  &Generator::View,           &Generator::Concat,
      &Generator::Matmul,     &Generator::Create,         &Generator::RealizeMid,
      &Generator::Index,      &Generator::Scan,           &Generator::Sort,
      &Generator::Scatter,    &Generator::Attention,      &Generator::Projections,
      &Generator::OneHotPick, &Generator::WeightGradient, &Generator::ManyLongRows};
  // (A trailing weight of 0 leaves every other step's draw as it was.)
  const int picks = o_.one_hot_picks ? 3 : 0, long_rows = o_.staged_row > 0 ? 15 : 0;
  const int which = rng_.Weighted(
      {16, 15, 10, 7, 5, 11, 8, 15, 4, 7, 3, 3, 5, 3, 3, 2, 2, 6, picks, 3, long_rows});
  try {
    (this->*steps[which])();
  } catch (const InternalError&) {
    throw;  // a bug while recording: the caller reports it
  } catch (const Error&) {
    // The API refused this combination: a user error, not a program. Try something else.
  }
}

void Generator::Unary() {
  Tensor x = PickNonBool();
  using Fn = Tensor (*)(const Tensor&);
  static const std::vector<Fn> fns = {
      &neg,  &abs,  &exp,      &log,  &sqrt,  &rsqrt, &sin,   &cos,   &tanh, &erf,   &sigmoid,
      &relu, &gelu, &gelu_erf, &silu, &floor, &ceil,  &round, &trunc, &sign, &log1p, &expm1};
  const Fn f = rng_.Pick(fns);
  const bool domain = f == &log || f == &sqrt || f == &rsqrt || f == &log1p;
  if (domain && rng_.Chance(0.6)) x = abs(Use(x));
  Add(f(Use(x)));
}

void Generator::Binary() {
  Tensor x = Pick(), y = Partner(x);
  if (rng_.Chance(0.5)) std::swap(x, y);
  using Fn = Tensor (*)(const Tensor&, const Tensor&);
  static const std::vector<Fn> fns = {&add,     &sub,     &mul,       &div,  &pow,
                                      &maximum, &minimum, &remainder, &fmod, &atan2};
  const size_t which = rng_.Below(static_cast<int64_t>(fns.size()));
  const bool min_max = which == 5 || which == 6;  // maximum and minimum take bools
  if (x.dtype() == DType::kBool && y.dtype() == DType::kBool && !min_max) {
    x = cast(Use(x), DType::kI32);
  }
  Add(fns[which](Use(x), Use(y)));
}

void Generator::WithScalar() {
  Tensor x = PickNonBool();
  const double s = RandomScalar();
  Use(x);
  switch (rng_.Below(11)) {
    case 0:
      return Add(x + s);
    case 1:
      return Add(x - s);
    case 2:
      return Add(x * s);
    case 3:
      return Add(x / s);
    case 4:
      return Add(s + x);
    case 5:
      return Add(s - x);
    case 6:
      return Add(s * x);
    case 7:
      return Add(s / x);
    case 8: {
      static const std::vector<double> exponents = {2, 3, 0.5, -1, 1.5, 0, 1};
      const double e = rng_.Pick(exponents);
      // Integers take no negative integer power (refused, as in PyTorch).
      return Add(pow(x, IsInteger(x.dtype()) ? std::abs(e) : e));
    }
    case 9:
      return Add(maximum(x, s));
    default:
      return Add(minimum(x, s));
  }
}

void Generator::Compare() {
  Tensor x = Pick();
  Tensor y = rng_.Chance(0.3) ? full({}, RandomScalar(), x.dtype(), Device::kCPU) : Partner(x);
  using Fn = Tensor (*)(const Tensor&, const Tensor&);
  static const std::vector<Fn> fns = {&eq, &ne,          &lt,         &le,         &gt,
                                      &ge, &logical_and, &logical_or, &logical_xor};
  using Predicate = Tensor (*)(const Tensor&);
  static const std::vector<Predicate> predicates = {&isnan, &isinf, &isfinite, &logical_not};
  Tensor cond = rng_.Chance(0.2) ? rng_.Pick(predicates)(Use(x)) : rng_.Pick(fns)(Use(x), Use(y));
  if (rng_.Chance(0.4)) return Add(cond);
  Tensor a = Partner(cond),
         b = rng_.Chance(0.3) ? full({}, RandomScalar(), a.dtype(), Device::kCPU) : Partner(cond);
  Add(where(cond, Use(a), Use(b)));
}

void Generator::Cast() {
  static const std::vector<DType> all = {DType::kF32,  DType::kBF16, DType::kF16, DType::kI32,
                                         DType::kBool, DType::kI64,  DType::kF64};
  Add(cast(Use(Pick()), rng_.Pick(all)));
}

void Generator::Reduce() {
  Tensor x = Pick();
  const bool keepdim = rng_.Chance(0.5);
  if (rng_.Chance(0.12) && x.dtype() != DType::kBool && x.numel() > 0) {
    const int axis = x.rank() == 0 ? 0 : RandomAxis(x.rank());
    Add((rng_.Chance(0.5) ? &argmax : &argmin)(Use(x), axis, keepdim));
    return;
  }
  const std::vector<int> axes = RandomAxes(x.rank(), /*allow_empty=*/true);
  using Fn = Tensor (*)(const Tensor&, std::vector<int>, bool);
  static const std::vector<Fn> fns = {
      &sum,
      &mean,
      &max,
      &min,
      &any,
      &all,
      &logsumexp,
      [](const Tensor& t, std::vector<int> a, bool k) { return var(t, a, k, 1); },
      [](const Tensor& t, std::vector<int> a, bool k) { return std(t, a, k, 0); },
      &prod};
  const size_t which = rng_.Below(static_cast<int64_t>(fns.size()));
  const bool floating_only = which == 1 || (which >= 6 && which <= 8);  // mean, lse, var, std
  if (floating_only && !IsFloating(x.dtype())) x = cast(Use(x), RandomFloat());
  Add(fns[which](Use(x), axes, keepdim));
}

void Generator::Normalize() {
  Tensor x = PickNonBool();
  if (x.rank() == 0) x = reshape(Use(x), {1});
  Use(x);
  const int64_t last = x.shape()[x.rank() - 1];
  auto param = [&](DType dtype) {
    return rng_.Chance(0.6) ? NewInput(dtype, Shape{last}) : Tensor();
  };
  static const std::vector<double> eps = {1e-5, 1e-6, 1e-3};
  switch (rng_.Weighted({30, 15, 20, 15, 20})) {
    case 0:
      return Add(softmax(x, RandomAxis(x.rank())));
    case 1:
      return Add(log_softmax(x, RandomAxis(x.rank())));
    case 2: {
      const DType p = rng_.Chance(0.5) ? x.dtype() : DType::kF32;
      Tensor w = param(p), b = param(p);
      return Add(layer_norm(x, w, b, rng_.Pick(eps)));
    }
    case 3:
      return Add(rms_norm(x, param(rng_.Chance(0.5) ? x.dtype() : DType::kF32), rng_.Pick(eps)));
    default: {
      using Fn = Tensor (*)(const Tensor&);
      static const std::vector<Fn> fns = {&gelu, &gelu_erf, &silu};
      return Add(rng_.Pick(fns)(x));
    }
  }
}

// A random shape with the same number of elements as `s`.
Shape Generator::Refactor(const Shape& s) {
  Shape::Dims dims = s.dims();
  switch (rng_.Below(4)) {
    case 0:  // merge two neighbours
      if (dims.size() >= 2) {
        const size_t i = rng_.Below(static_cast<int64_t>(dims.size()) - 1);
        dims[i] *= dims[i + 1];
        dims.erase(dims.begin() + i + 1);
      }
      break;
    case 1:  // split one axis by a factor
      if (!dims.empty()) {
        const size_t i = rng_.Below(static_cast<int64_t>(dims.size()));
        for (int64_t f : {2, 3, 4, 5, 7, 8, 16}) {
          if (dims[i] % f == 0 && dims[i] > f && rng_.Chance(0.5)) {
            dims[i] /= f;
            dims.insert(dims.begin() + i + 1, f);
            break;
          }
        }
      }
      break;
    case 2:  // add a size-1 axis
      dims.insert(dims.begin() + rng_.Below(static_cast<int64_t>(dims.size()) + 1), 1);
      break;
    default:  // drop a size-1 axis, or flatten
      if (auto it = std::find(dims.begin(), dims.end(), 1); it != dims.end()) {
        dims.erase(it);
      } else {
        dims = {s.numel()};
      }
      break;
  }
  Shape out(dims);
  if (out.rank() > 0 && out.numel() > 0 && rng_.Chance(0.2)) out[rng_.Below(out.rank())] = -1;
  return out;
}

void Generator::View() {
  Tensor x = Pick();
  Use(x);
  const int r = x.rank();
  switch (rng_.Weighted({25, 20, 15, 20, 20, 10})) {
    case 0:
      return Add(reshape(x, Refactor(x.shape())));
    case 1: {
      std::vector<int> perm(r);
      std::iota(perm.begin(), perm.end(), 0);
      for (int i = r - 1; i > 0; --i) std::swap(perm[i], perm[rng_.Below(i + 1)]);
      for (int& p : perm) p = rng_.Chance(0.2) ? p - r : p;
      return Add(permute(x, perm));
    }
    case 2:
      return Add(transpose(x));
    case 3: {
      Shape::Dims dims = x.shape().dims();
      for (int64_t& d : dims) d = d == 1 && rng_.Chance(0.7) ? rng_.Between(2, 9) : d;
      for (int64_t lead = rng_.Below(3); lead > 0; --lead)
        dims.insert(dims.begin(), rng_.Between(1, 5));
      return Add(broadcast_to(x, Shape(dims)));
    }
    case 4: {
      if (r == 0) return;
      const int axis = RandomAxis(r);
      const int64_t n = x.shape()[axis < 0 ? axis + r : axis];
      const int64_t start = rng_.Between(-n - 1, n + 1), end = rng_.Between(-n - 1, n + 1);
      return Add(slice(x, axis, start, end, rng_.Chance(0.7) ? 1 : rng_.Between(2, 5)));
    }
    default: {
      std::vector<int> axes;
      for (int a = 0; a < r; ++a) {
        if (rng_.Chance(0.5)) axes.push_back(rng_.Chance(0.2) ? a - r : a);
      }
      return Add(flip(x, axes));
    }
  }
}

void Generator::Concat() {
  Tensor x = Pick();
  if (x.rank() == 0) return;
  Use(x);
  const int axis = RandomAxis(x.rank());
  const int a = axis < 0 ? axis + x.rank() : axis;
  std::vector<Tensor> parts = {x};
  for (int64_t i = rng_.Between(1, 2); i > 0; --i) {
    Shape s = x.shape();
    if (rng_.Chance(0.3) && s[a] > 1) {
      parts.push_back(slice(x, a, rng_.Below(s[a]), s[a]));
      continue;
    }
    s[a] = rng_.Chance(0.1) ? 0 : RandomExtent() % 40 + 1;
    if (Fit(s) != s) continue;
    parts.push_back(rng_.Chance(0.2) ? x
                                     : NewInput(rng_.Chance(0.7) ? x.dtype() : RandomDType(), s));
  }
  std::swap(parts[0], parts[rng_.Below(static_cast<int64_t>(parts.size()))]);
  Add(concat(parts, axis));
}

void Generator::Create() {
  const Shape shape = rng_.Chance(0.6) ? Pick().shape() : RandomShape();
  switch (rng_.Below(5)) {
    case 0:
      return Add(full(shape, RandomScalar(), RandomDType(), Device::kCPU));
    case 1:
      return Add(arange(rng_.Between(0, 300), rng_.Chance(0.5) ? DType::kF32 : RandomDType(),
                        Device::kCPU));
    case 2:
      return Add(rand(shape, rng_.Next() % 1000, RandomFloat(), Device::kCPU));
    case 3:
      return Add(randn(shape, rng_.Next() % 1000, RandomFloat(), Device::kCPU));
    default:
      return Add(rng_.Chance(0.5) ? zeros(shape, RandomDType(), Device::kCPU)
                                  : ones(shape, RandomDType(), Device::kCPU));
  }
}

}  // namespace internal

std::string GenerateProgram(uint64_t seed, const GeneratorOptions& options) {
  return internal::Generator(seed, options).Run();
}

}  // namespace tessel::fuzz
