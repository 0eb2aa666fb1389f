// The generator's model-shaped steps (generator_internal.h): matmuls of every layout,
// attention as users write it, sibling projections, cross-entropy's one-hot pick.
#include <algorithm>
#include <cmath>

#include "tools/fuzz/generator_internal.h"

namespace tessel::fuzz::internal {

// q, k or v [batch, heads, s, d] as users lay them out: an input of that shape, the heads
// of a [batch, s, heads, d] input, or (`packed` set) part `part` of a [batch, s, 3 heads d]
// projection, as a language model splits its fused q/k/v projection.
Tensor Generator::Heads(DType t, const Shape& shape, int layout, Tensor* packed, int part) {
  const int64_t batch = shape[0], heads = shape[1], s = shape[2], d = shape[3];
  if (layout == 1) return permute(Use(NewInput(t, {batch, s, heads, d})), {0, 2, 1, 3});
  if (layout == 2) {
    if (!packed->defined()) *packed = NewInput(t, {batch, s, 3 * heads * d});
    const Tensor x = slice(Use(*packed), 2, part * heads * d, (part + 1) * heads * d);
    return permute(reshape(x, {batch, s, heads, d}), {0, 2, 1, 3});
  }
  return NewInput(t, shape);
}

// Attention as users write it: softmax(f(q k^T)) v, f a scale and sometimes a bias, a
// causal mask (shifted: queries at the end of the keys), a window's far side or a cache's
// valid length, the softmax by the op or by hand, k and v sometimes shared by the heads
// (broadcast, or a group axis as grouped-query attention writes it), sometimes one sequence
// against a long key list (the wgmma kernel then splits the keys among blocks); mostly head
// dimension 64 or 128, some others up to 256 (padded with zeros; 160 stays on mma.sync, 200
// and 256 take wgmma's key tiles of 80), q, k and v sometimes permuted from [batch, s,
// heads, d] or sliced from one packed projection.
void Generator::Attention() {
  static const std::vector<int64_t> lengths = {1, 7, 16, 33, 64, 65, 100, 130};
  const DType t = rng_.Chance(0.7) ? DType::kBF16 : DType::kF16;
  const int64_t d = rng_.Chance(0.8)
                        ? (rng_.Chance(0.5) ? 64 : 128)
                        : rng_.Pick(std::vector<int64_t>{8, 16, 32, 40, 80, 96, 160, 200, 256}),
                heads = rng_.Between(1, 4);
  // Long key lists split among blocks; the longest (a few queries only, for the reference's
  // sake) into 10 to 125 shares, merged in the kernel or by a second launch of blocks of 8 to
  // 1 rows.
  const bool long_keys = rng_.Chance(0.15), longest = long_keys && rng_.Chance(0.4);
  const int64_t batch = long_keys ? 1 : 2;
  const int64_t sq = longest ? rng_.Pick(std::vector<int64_t>{1, 3, 16}) : rng_.Pick(lengths);
  const int64_t sk = longest     ? rng_.Pick(std::vector<int64_t>{5000, 20000, 40000})
                     : long_keys ? rng_.Pick(std::vector<int64_t>{600, 1100, 1500})
                                 : rng_.Pick(lengths);
  const int64_t kv = rng_.Chance(0.3) ? 1 : heads;
  const bool grouped = rng_.Chance(0.3);  // [batch, kv heads, group, S, D]
  const Shape q_shape = grouped ? Shape{batch, kv, heads, sq, d} : Shape{batch, heads, sq, d};
  const Shape kv_shape = grouped ? Shape{batch, kv, 1, sk, d} : Shape{batch, kv, sk, d};
  Tensor q, k, v;
  if (grouped) {
    q = NewInput(t, q_shape), k = NewInput(t, kv_shape), v = NewInput(t, kv_shape);
  } else {
    Tensor packed;
    const int layout = static_cast<int>(rng_.Weighted({60, 20, sq == sk && kv == heads ? 20 : 0}));
    q = Heads(t, q_shape, layout, &packed, 0);
    k = Heads(t, kv_shape, layout, &packed, 1), v = Heads(t, kv_shape, layout, &packed, 2);
  }
  const Tensor all = ones({sq, sk}, DType::kBool), k_t = transpose(Use(k));
  const int mask = rng_.Weighted({55, 15, 15, 10, 5});
  const int64_t window = rng_.Between(1, 40);
  const bool bias = rng_.Chance(0.3);
  auto attend = [&](const Tensor& queries) {
    Tensor s = matmul(Use(queries), k_t) * (1 / std::sqrt(static_cast<double>(d)));
    if (bias) s = s + Use(NewInput(t, Shape{sq, sk}));
    switch (mask) {
      case 1:  // causal
        s = masked_fill(s, triu(all, 1), -INFINITY);
        break;
      case 2:  // causal, the queries the last of the keys (decoding)
        s = where(tril(all, sk - sq), s, -INFINITY);
        break;
      case 3:  // a window's far side
        s = masked_fill(s, tril(all, sk - sq - window), -INFINITY);
        break;
      case 4:  // a cache's valid length
        s = where(lt(arange(sk, DType::kI32), std::min<int64_t>(sk, window)), s, -INFINITY);
        break;
      default:
        break;
    }
    if (rng_.Chance(0.5)) return matmul(softmax(s, -1), Use(v));
    const Tensor x = cast(s, DType::kF32), e = exp(x - max(x, {-1}, true));
    return matmul(cast(e / sum(e, {-1}, true), t), Use(v));
  };
  Add(attend(q));
  // Sometimes a second chain over the same keys: k^T and the mask read by both kernels.
  if (rng_.Chance(0.15)) Add(attend(NewInput(t, q.shape())));
}

void Generator::Matmul() {
  static const std::vector<int64_t> sizes = {1,   2,   3,   5,   7,   8,   9,   15,  16,  17,
                                             24,  31,  32,  33,  48,  64,  65,  96,  100, 127,
                                             128, 129, 136, 192, 200, 256, 264, 300, 384};
  static const std::vector<DType> kinds = {DType::kBF16, DType::kF16, DType::kF32};
  const DType ta = kinds[rng_.Weighted({35, 15, 40})];
  const DType tb = rng_.Chance(0.1) ? rng_.Pick(kinds) : ta;
  // f32 x f32: a quarter on TF32, a tenth on three TF32 products (kHigh).
  MatmulPrecision precision = MatmulPrecision::kHighest;
  if (ta == DType::kF32 && tb == DType::kF32) {
    const int pick = rng_.Weighted({65, 25, 10});
    precision = pick == 1   ? MatmulPrecision::kTF32
                : pick == 2 ? MatmulPrecision::kHigh
                            : MatmulPrecision::kHighest;
  }
  int64_t m = rng_.Pick(sizes), n = rng_.Pick(sizes), k = rng_.Pick(sizes);
  Shape::Dims batch_a, batch_b;
  switch (rng_.Weighted({55, 25, 20})) {
    case 1:
      batch_a = batch_b = {rng_.Between(2, 5)};
      if (rng_.Chance(0.4)) (rng_.Chance(0.5) ? batch_a : batch_b).clear();
      break;
    case 2:
      batch_a = {rng_.Between(2, 3), 1};
      batch_b = {rng_.Between(2, 3)};
      break;
    default:
      break;
  }
  Tensor a;
  Tensor from_pool = Pick();
  if (rng_.Chance(0.3) && IsFloating(from_pool.dtype()) && from_pool.rank() >= 1 &&
      from_pool.rank() <= 4 && from_pool.shape()[from_pool.rank() - 1] > 0) {
    a = Use(from_pool);
    k = a.shape()[a.rank() - 1];
    m = a.rank() >= 2 ? a.shape()[a.rank() - 2] : 1;
    batch_a.clear();
    for (int d = 0; d + 2 < a.rank(); ++d) batch_a.push_back(a.shape()[d]);
    if (batch_b.size() > batch_a.size()) batch_b.clear();
  } else if (rng_.Chance(0.06)) {
    a = NewInput(ta, Shape{k});
    m = 1;
    batch_a.clear();
  } else {
    a = Operand(ta, batch_a, m, k, rng_.Chance(0.25));
  }
  int64_t batch = 1;
  for (int64_t d : batch_a) batch *= d;
  for (int64_t d : batch_b) batch = std::max(batch, batch * d);
  if (m * n * k * batch > o_.max_matmul_flops) n = std::max<int64_t>(1, n / 8);
  if (m * n * k * batch > o_.max_matmul_flops) return;
  Tensor b =
      rng_.Chance(0.06) ? NewInput(tb, Shape{k}) : Operand(tb, batch_b, k, n, rng_.Chance(0.35));
  const MatmulPrecision before = matmul_precision();
  set_matmul_precision(precision);
  Tensor y;
  try {
    y = rng_.Chance(0.15) && b.rank() == 2 ? linear(a, b, NewInput(tb, Shape{n})) : matmul(a, b);
  } catch (...) {
    set_matmul_precision(before);
    throw;
  }
  set_matmul_precision(before);
  Add(y);
}

// GEMMs of one A as models write them: projections of one x to several widths (q, k and
// v), each with an epilogue of its own, or a gate and an up projection met elementwise
// (SwiGLU, GEGLU, a sum); or independent GEMMs of any sizes (experts, grouped_matmul). On
// sm_90a each set is one kernel (fusion/gemm_groups.cc).
void Generator::Projections() {
  static const std::vector<int64_t> widths = {8, 16, 24, 40, 45, 64, 72, 128, 136, 200, 264};
  static const std::vector<int64_t> rows = {1, 3, 17, 64, 65, 100, 200, 300};
  static const std::vector<int64_t> depths = {8, 16, 40, 64, 72, 128, 136};
  static const std::vector<int64_t> deep_rows = {1, 3, 17, 33}, deep = {1024, 1088, 2048};
  const DType t = rng_.Chance(0.7) ? DType::kBF16 : DType::kF16;
  // Sometimes a decode batch's few rows over a deep K (the stage ring wraps many times in
  // a tile; up to 32 rows, the tensor cores' operands swapped; from 8 rows, tiles for few
  // SMs in K slices of 8 or more steps: 2 to 4 here), or experts of few rows.
  const bool decode = rng_.Chance(0.2);
  const int64_t m = rng_.Pick(decode ? deep_rows : rows), k = rng_.Pick(decode ? deep : depths);
  if (m * k * 3 * 264 > o_.max_matmul_flops) return;
  if (rng_.Chance(0.35)) {
    std::vector<Tensor> a, b;
    for (int64_t i = 0, count = rng_.Between(2, 4); i < count; ++i) {
      const int64_t ki = rng_.Pick(depths);
      a.push_back(Use(NewInput(t, Shape{rng_.Pick(decode ? deep_rows : rows), ki})));
      b.push_back(Use(NewInput(t, Shape{ki, rng_.Pick(widths)})));
    }
    for (const Tensor& y : grouped_matmul(a, b)) Add(rng_.Chance(0.3) ? gelu(y) : y);
    return;
  }
  const Tensor x = NewInput(t, Shape{m, k});
  const bool transposed = rng_.Chance(0.3);  // the weights stored [n, k]
  auto project = [&](int64_t n) { return matmul(Use(x), Operand(t, {}, k, n, transposed)); };
  if (rng_.Chance(0.4)) {
    const int64_t n = rng_.Pick(widths);
    const Tensor gate = project(n), up = project(n);
    using Fn = Tensor (*)(const Tensor&);
    static const std::vector<Fn> acts = {&silu, &gelu, &sigmoid, &relu};
    Add(rng_.Chance(0.8) ? rng_.Pick(acts)(gate) * up : gate + up);
    if (rng_.Chance(0.2)) Add(gate);
    return;
  }
  for (int64_t i = 0, count = rng_.Between(2, 3); i < count; ++i) {
    Tensor y = project(rng_.Pick(widths));
    const int64_t n = y.shape()[1];
    switch (rng_.Below(4)) {
      case 1:
        y = y + NewInput(t, Shape{n});
        break;
      case 2:
        y = gelu(y);
        break;
      case 3:
        y = y * 0.5 + NewInput(t, Shape{m, n});
        break;
      default:
        break;
    }
    Add(y);
  }
}

// A [batch..., rows, cols] operand, stored transposed when `transposed`.
Tensor Generator::Operand(DType dtype, Shape::Dims batch, int64_t rows, int64_t cols,
                          bool transposed) {
  Shape::Dims dims = batch;
  dims.push_back(transposed ? cols : rows);
  dims.push_back(transposed ? rows : cols);
  Tensor t = NewInput(dtype, Shape(dims));
  return transposed ? transpose(Use(t)) : Use(t);
}

// Cross-entropy's pick as users write it without gather: a sum or mean over the last axis of
// where(eq(arange, t), x, e) (or the ne form), t an integer a row, in the row or just past it.
// Mostly over fresh logits of up to 300 rows of 3000 classes: rows that stream where held
// rows are short (--staged_row).
void Generator::OneHotPick() {
  Tensor x = rng_.Chance(0.7)
                 ? NewInput(RandomFloat(), Fit(Shape{rng_.Between(1, 300), rng_.Between(1, 3000)}))
                 : Pick();
  if (x.rank() == 0 || x.numel() == 0) return;
  if (!IsFloating(x.dtype())) x = cast(Use(x), RandomFloat());
  const int64_t n = x.shape()[x.rank() - 1];
  const DType it = rng_.Chance(0.5) ? DType::kI64 : DType::kI32;
  Shape::Dims row = x.shape().dims();
  row.back() = 1;
  const Tensor t = remainder(Use(NewInput(it, Shape(row))),
                             full({}, static_cast<double>(n + 2), it, Device::kCPU)) -
                   1;
  const Tensor classes = arange(n, rng_.Chance(0.7) ? DType::kI64 : DType::kI32, Device::kCPU);
  static const std::vector<double> others = {0, -0.0, 0.25, -1.5};
  const double e = rng_.Chance(0.7) ? rng_.Pick(others) : RandomScalar();
  const bool flip = rng_.Chance(0.5), keepdim = rng_.Chance(0.5);
  Use(x);
  const Tensor terms = rng_.Chance(0.7) ? where(flip ? eq(t, classes) : eq(classes, t), x, e)
                                        : where(flip ? ne(t, classes) : ne(classes, t), e, x);
  Add((rng_.Chance(0.8) ? &sum : &mean)(terms, {-1}, keepdim));
}

// A linear layer's gradients over a batch, as a training step writes them: the weight's
// matmul(transpose(x), dy), whose K is the batch (on sm_90a a GEMM that takes it as its K
// where the batch varies), sometimes as an SGD update w - lr g; the bias's sum(dy, {0}); a
// loss's mean of every value. The batch is the first input's leading extent where it has
// one, which diff mode varies (OtherLeadingExtents).
void Generator::WeightGradient() {
  static const std::vector<int64_t> widths = {8, 16, 24, 40, 64, 72, 128, 136};
  static const std::vector<int64_t> batches = {2, 3, 17, 33, 64, 65, 100, 200};
  static const std::vector<DType> kinds = {DType::kBF16, DType::kF16, DType::kF32};
  const DType t = kinds[rng_.Weighted({45, 15, 40})];
  int64_t b = rng_.Pick(batches);
  if (!inputs_.empty() && inputs_[0].rank() > 0 && inputs_[0].shape()[0] >= 2 &&
      inputs_[0].shape()[0] <= 4096) {
    b = inputs_[0].shape()[0];
  }
  const int64_t m = rng_.Pick(widths), n = rng_.Pick(widths);
  if (b * m * n > o_.max_matmul_flops) return;
  const Tensor x = NewInput(t, Shape{b, m}), dy = NewInput(t, Shape{b, n});
  Tensor g = matmul(transpose(Use(x)), Use(dy));
  if (rng_.Chance(0.4)) g = Use(NewInput(t, Shape{m, n})) - 0.01 * g;
  Add(g);
  if (rng_.Chance(0.5)) Add(sum(Use(dy), {0}));
  if (rng_.Chance(0.3)) Add(mean(Use(dy) * Use(dy)));
}

// Normalizations over many rows just longer than the campaign's --staged_row (a vocabulary's
// softmax at the fuzzer's sizes): a block holds each row in shared memory where its inputs
// fit (codegen/row_held.cc), else the rows stream; what the rows' readers write goes back
// over them (softmax, log_softmax, layer norm, a centering, a second input by the stores).
void Generator::ManyLongRows() {
  const int64_t n = o_.staged_row;
  // Mostly rows a block holds (up to 3 n at the campaign's sizes, fusion/planner.cc), some
  // past them.
  const int64_t length = rng_.Chance(0.8) ? rng_.Between(n + 1, 3 * n) : rng_.Between(3 * n, 4 * n);
  const Tensor x = NewInput(RandomFloat(), Fit(Shape{rng_.Between(256, 520), length}));
  Use(x);
  const int64_t last = x.shape()[1];
  switch (rng_.Weighted({30, 20, 20, 15, 15})) {
    case 0:
      return Add(softmax(x, -1));
    case 1:
      return Add(log_softmax(x, 1) * 2.0);
    case 2: {
      const DType p = rng_.Chance(0.5) ? x.dtype() : DType::kF32;
      const bool params = rng_.Chance(0.6);
      return Add(layer_norm(x, params ? Use(NewInput(p, Shape{last})) : Tensor(),
                            params ? Use(NewInput(p, Shape{last})) : Tensor()));
    }
    case 3:
      return Add(x - mean(x, {1}, true));
    default:
      Add(softmax(x, -1) * Use(NewInput(x.dtype(), x.shape())));
      if (rng_.Chance(0.5)) Add(max(x, {1}));  // a value a row beside the rows
  }
}

}  // namespace tessel::fuzz::internal
