#include "codegen/attention_band.h"

namespace tessel::codegen {
namespace {

bool Is(const Node* n, OpKind op) { return n != nullptr && !n->realized() && n->op() == op; }

// An i32 arange of the scores' column index (`axis_from_end` 0) or row index (1): arange(n)
// as is or reshaped so that n lies on that axis, counted from the right, and every other axis
// is 1. Broadcasting aligns the right ends, so its value at score (.., row, col) is the index.
bool IsIndexView(const Node* n, int axis_from_end, int64_t extent) {
  const Shape& s = n->shape();
  if (s.rank() < axis_from_end + 1) return false;
  for (int i = 0; i < s.rank(); ++i) {
    if (s[i] != (i == s.rank() - 1 - axis_from_end ? extent : 1)) return false;
  }
  if (Is(n, OpKind::kReshape)) n = &n->input(0);
  return Is(n, OpKind::kArange) && n->dtype() == DType::kI32 && n->shape()[0] == extent;
}

// The comparison cmp(col - row, d) (the form triu and tril record), or cmp(col, d) (a key
// position against a length), with d an integer `full`: sets `band` to the keys masked where
// the comparison's value is `masked_if`.
bool ComparisonBand(const Node* cmp, bool masked_if, int64_t sq, int64_t sk, KeyBand* band) {
  if (cmp->inputs().size() != 2) return false;
  const Node *x = &cmp->input(0), *d = &cmp->input(1);
  if (!Is(d, OpKind::kFull) || IsFloating(d->dtype()) || d->dtype() == DType::kBool) return false;
  if (Is(x, OpKind::kSub) && IsIndexView(&x->input(0), 0, sk) && IsIndexView(&x->input(1), 1, sq)) {
    band->per_row = true;
  } else if (IsIndexView(x, 0, sk)) {
    band->per_row = false;
  } else {
    return false;
  }
  // Masked where x op d == masked_if; as an interval of x (col - row, or col):
  // >= d + a (upper) or <= d + a (lower).
  int64_t a = 0;
  bool upper;
  switch (cmp->op()) {
    case OpKind::kGe:
      upper = masked_if, a = masked_if ? 0 : -1;
      break;
    case OpKind::kGt:
      upper = masked_if, a = masked_if ? 1 : 0;
      break;
    case OpKind::kLe:
      upper = !masked_if, a = masked_if ? 0 : 1;
      break;
    case OpKind::kLt:
      upper = !masked_if, a = masked_if ? -1 : 0;
      break;
    default:
      return false;
  }
  band->upper = upper;
  band->diagonal = d;
  band->adjust = a;
  return true;
}

bool IsWhereOfFulls(const Node* n) {
  return Is(n, OpKind::kWhere) && Is(&n->input(1), OpKind::kFull) &&
         Is(&n->input(2), OpKind::kFull);
}

// Where `mask` (bool) is true for sure: a comparison; where(cmp, T, F) of bool `full`s
// (triu/tril of ones), read as the comparison when T is true and F false at run time;
// logical_not of such a mask; or eq / ne of where(cmp, T, F) and a `full` c (`tril(ones) ==
// 0`), read as cmp's negation (eq) or cmp (ne) when F == c and T != c at run time.
bool MaskBand(const Node* mask, bool masked_if, int64_t sq, int64_t sk, KeyBand* band) {
  if (Is(mask, OpKind::kLogicalNot)) return MaskBand(&mask->input(0), !masked_if, sq, sk, band);
  if ((Is(mask, OpKind::kEq) || Is(mask, OpKind::kNe)) && IsWhereOfFulls(&mask->input(0)) &&
      Is(&mask->input(1), OpKind::kFull)) {
    const Node *w = &mask->input(0), *c = &mask->input(1);
    band->conditions.push_back({&w->input(2), c, true});
    band->conditions.push_back({&w->input(1), c, false});
    const bool negated = mask->op() == OpKind::kEq;
    return ComparisonBand(&w->input(0), negated ? !masked_if : masked_if, sq, sk, band);
  }
  if (IsWhereOfFulls(mask)) {
    band->conditions.push_back({&mask->input(1), nullptr, false});
    band->conditions.push_back({&mask->input(2), nullptr, true});
    mask = &mask->input(0);
  }
  return ComparisonBand(mask, masked_if, sq, sk, band);
}

}  // namespace

std::vector<KeyBand> FindKeyBands(const Node* logits, int64_t sq, int64_t sk) {
  std::vector<KeyBand> bands;
  const Node* n = logits;
  while (true) {
    if (Is(n, OpKind::kCast) && IsFloating(n->dtype())) {  // -inf stays -inf
      n = &n->input(0);
      continue;
    }
    if (!Is(n, OpKind::kWhere)) break;
    // where(mask, fill, x) masks where mask is true; where(mask, x, fill) where it is false.
    const bool fill_first = Is(&n->input(1), OpKind::kFull);
    const Node* fill = fill_first ? &n->input(1) : &n->input(2);
    if (!Is(fill, OpKind::kFull) || !IsFloating(fill->dtype())) break;
    KeyBand band;
    band.fill = fill;
    band.where = n;
    band.kept = fill_first ? &n->input(2) : &n->input(1);
    if (MaskBand(&n->input(0), fill_first, sq, sk, &band)) bands.push_back(band);
    n = band.kept;
  }
  return bands;
}

}  // namespace tessel::codegen
