#include "codegen/one_hot_sum.h"

#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/index_expr.h"
#include "codegen/kernel_common.h"

namespace tessel::codegen {
namespace {

// The same in every position of a row of `l` (broadcast along its last axis).
bool RowInvariant(const Node& n) {
  const Shape& s = n.shape();
  return s.rank() == 0 || s[s.rank() - 1] == 1;
}

// Whether `n` holds each position of the reduced axis (of length `length`) as its value: an
// integer arange, seen through reshapes that only add leading 1s (a realized view holds data
// and no inputs).
bool IsPositionAlongRow(const Node* n, int64_t length) {
  while (n->op() == OpKind::kReshape && !n->realized() && n->shape().numel() == length &&
         n->shape()[n->shape().rank() - 1] == length) {
    n = &n->input(0);
  }
  return n->op() == OpKind::kArange && IsInteger(n->dtype()) && n->shape()[0] == length;
}

}  // namespace

std::optional<OneHotSum> MatchOneHotSum(const Accumulator& a, const RowLayout& l,
                                        const KernelSource& ks) {
  const int rank = l.space.rank();
  if (a.combine != OpKind::kSum || !a.floating() || !l.trailing || l.axes.size() != 1 ||
      l.axes[0] != rank - 1) {
    return std::nullopt;
  }
  const Node& where = a.reduction->input(0);
  if (where.op() != OpKind::kWhere || where.realized() || InputIndex(ks, &where) >= 0 ||
      where.shape() != l.space) {
    return std::nullopt;
  }
  const Node& cond = where.input(0);
  const bool eq = cond.op() == OpKind::kEq;
  if ((!eq && cond.op() != OpKind::kNe) || cond.realized() || InputIndex(ks, &cond) >= 0 ||
      cond.shape() != l.space) {
    return std::nullopt;
  }
  const Node& picked = where.input(eq ? 1 : 2);
  const Node& other = where.input(eq ? 2 : 1);
  // The where's own dtype: its terms are x and e unconverted.
  if (picked.dtype() != where.dtype() || other.dtype() != where.dtype() || !RowInvariant(other)) {
    return std::nullopt;
  }
  for (int position = 0; position < 2; ++position) {
    const Node& target = cond.input(1 - position);
    if (IsPositionAlongRow(&cond.input(position), l.length) && IsInteger(target.dtype()) &&
        RowInvariant(target)) {
      return OneHotSum{&target, &picked, &other};
    }
  }
  return std::nullopt;
}

void EmitOneHotSum(CodeWriter& w, const KernelSource& ks, const RowLayout& l, const Accumulator& a,
                   const OneHotSum& m) {
  w.Line("// ", a.name, ": the one-hot terms, x at the target and e elsewhere");
  auto block = w.Block("if (threadIdx.x == 0)");
  // Values of one lane (lane 0); t and e at the part's first position, x at the target.
  ExprEmitter e(&w, 1, ks);
  auto at = [&](const Node* n, const std::string& col) {
    return Broadcast(RowIndex(l, "row", col, 1, ""), l.space, n->shape());
  };
  const Value target = e.Get(m.target, at(m.target, "begin"));
  const Value other = e.Get(m.other, at(m.other, "begin"));
  w.Line("const long long pick = (long long)", target.At("0"), ";");
  w.Line("const bool picked = pick >= begin && pick < end;");
  w.Line("const index_t others = end - begin - (picked ? 1 : 0);");
  // 0 + others * e: +0 where e is -0, as a sum of -0s from 0 gives.
  w.Line(
      "if (others > 0) ", a.name, " = ",
      a.Combine(a.name, absl::StrCat("(", a.type(), ")others * (", a.type(), ")", other.At("0"))),
      ";");
  auto at_target = w.Block("if (picked)");
  ExprEmitter pick(&w, 1, ks);
  const Value x = pick.Get(m.picked, at(m.picked, "(index_t)pick"));
  w.Line(a.name, " = ", a.Combine(a.name, absl::StrCat("(", a.type(), ")", x.At("0"))), ";");
}

}  // namespace tessel::codegen
