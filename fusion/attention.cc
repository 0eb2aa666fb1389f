#include "fusion/attention.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/strided_view.h"

namespace tessel::fusion_internal {
namespace {

bool Computed(const Node* n, OpKind op) { return n->op() == op && !n->realized(); }

bool IsElementwise(const Node* n) {
  return !n->realized() && GetOpInfo(n->op()).category == OpCategory::kElementwise;
}

// The one axis `n` reduces with its dimension kept, or -1.
int KeptAxis(const Node* n) {
  if (n->realized() || n->attrs().ints.size() != 1) return -1;
  if (n->shape().rank() != n->input(0).shape().rank()) return -1;
  return static_cast<int>(n->attrs().ints[0]);
}

// The chain from the logits back to the scores: f's nodes (elementwise, each reading the
// scores through others of f) and what they read besides.
struct ScoreCone {
  const Node* scores = nullptr;
  std::vector<const Node*> ops, inputs;
  std::string error;
};

ScoreCone FindScores(const Node* logits) {
  ScoreCone cone;
  // The matmuls that the logits read through elementwise nodes: exactly one may.
  std::vector<const Node*> stack = {logits};
  absl::flat_hash_map<const Node*, bool> seen;
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!seen.emplace(n, true).second) continue;
    if (Computed(n, OpKind::kMatmul)) {
      if (cone.scores != nullptr && cone.scores != n) {
        cone.error = "the softmax's input reads two matmuls";
        return cone;
      }
      cone.scores = n;
    } else if (IsElementwise(n)) {
      for (const NodePtr& in : n->inputs()) stack.push_back(in.get());
    }
  }
  if (cone.scores == nullptr) {
    cone.error = "no matmul feeds the softmax through elementwise work";
    return cone;
  }
  // f: the elementwise nodes on a path from the scores to the logits.
  absl::flat_hash_map<const Node*, bool> reaches = {{cone.scores, true}};
  auto reach = [&](auto&& self, const Node* n) -> bool {
    if (auto it = reaches.find(n); it != reaches.end()) return it->second;
    bool any = false;
    if (IsElementwise(n)) {
      for (const NodePtr& in : n->inputs()) any = self(self, in.get()) || any;
    }
    reaches[n] = any;
    if (any) cone.ops.push_back(n);  // after its inputs: producers first
    return any;
  };
  reach(reach, logits);
  for (const Node* op : cone.ops) {
    for (const NodePtr& in : op->inputs()) {
      if (!reaches.at(in.get()) &&
          std::find(cone.inputs.begin(), cone.inputs.end(), in.get()) == cone.inputs.end()) {
        cone.inputs.push_back(in.get());
      }
    }
  }
  return cone;
}

// Whether the kernel can read an operand laid out as `l` (its head dimension on axis
// `d_axis`, its rows on the other of its last two): the head dimension contiguous, the rows
// and the start 16-byte aligned (TMA), the batch axes at most three steps through memory.
bool SuitsKernel(const StridedLayout& l, const Shape& shape, int d_axis) {
  const int rank = shape.rank(), row_axis = d_axis == rank - 1 ? rank - 2 : rank - 1;
  constexpr int64_t kAligned = 8;  // elements of 16 bits in 16 bytes
  if (l.strides[d_axis] != 1 || l.offset % kAligned != 0) return false;
  if (shape[row_axis] > 1 && (l.strides[row_axis] <= 0 || l.strides[row_axis] % kAligned != 0)) {
    return false;
  }
  std::vector<int> batch(rank - 2);
  for (int a = 0; a < rank - 2; ++a) batch[a] = a;
  const std::vector<MemoryAxis> axes = MemoryAxes(shape, l.strides, batch);
  for (const MemoryAxis& a : axes) {
    if (a.stride < 0 || a.stride % kAligned != 0) return false;
  }
  return axes.size() <= 3;
}

// The views below `operand` that the kernel can read through, from the operand down: each
// one's input, read as it lays the operand out, suits the kernel at every cut above it too
// (any of them may be written instead: another reader, an output). `stop` is the first view
// that cannot be read through (it is written), or null.
void ReadableViews(const Node* operand, int d_axis, std::vector<const Node*>* views,
                   std::vector<const Node*>* stops) {
  for (const Node* n = operand; !n->realized() && GetOpInfo(n->op()).category == OpCategory::kView;
       n = &n->input(0)) {
    const Node* below = &n->input(0);
    const std::optional<StridedLayout> l =
        LayoutOverViews(*operand, [&](const Node& x) { return &x == below || x.realized(); });
    if (!l || !SuitsKernel(*l, operand->shape(), d_axis)) {
      stops->push_back(n);
      return;
    }
    views->push_back(n);
  }
}

// Why q, k and v do not suit the kernel, or "".
std::string OperandsRefusal(AttentionMatch& m) {
  const DType t = m.q->dtype();
  if (t != DType::kBF16 && t != DType::kF16) {
    return absl::StrCat("q is ", DTypeName(t), ": the attention kernel takes bf16 or f16");
  }
  if (m.k_t->dtype() != t || m.v->dtype() != t) return "q, k and v differ in dtype";
  const int rank = m.q->shape().rank();
  const int64_t d = m.q->shape()[rank - 1];
  const int64_t dv = m.v->shape()[m.v->shape().rank() - 1];
  if (d > 256 || d % 8 != 0) {
    return absl::StrCat("head dimension ", d,
                        ": the attention kernel takes multiples of 8 up to 256");
  }
  if (dv != d) return absl::StrCat("v's head dimension ", dv, " differs from q's ", d);
  // The kernel reads q, k and v as rows of D contiguous elements, through the views below
  // them where it can (q or v written by another kernel are such rows), k^T only so.
  const size_t before = m.views.size();
  ReadableViews(m.k_t, m.k_t->shape().rank() - 2, &m.views, &m.view_stops);
  if (m.views.size() == before || m.views[before] != m.k_t) {
    return "k^T is not a view of a [.., S_k, D] tensor with D contiguous";
  }
  ReadableViews(m.q, rank - 1, &m.views, &m.view_stops);
  ReadableViews(m.v, m.v->shape().rank() - 1, &m.views, &m.view_stops);
  return "";
}

}  // namespace

std::optional<AttentionMatch> MatchAttention(const PlannerState& state, const Node* output,
                                             std::string* why_not) {
  why_not->clear();
  if (!Computed(output, OpKind::kMatmul)) return std::nullopt;
  AttentionMatch m;
  m.output = output;
  m.probs = &output->input(0);
  const Node* div = Computed(m.probs, OpKind::kCast) ? &m.probs->input(0) : m.probs;
  if (!Computed(div, OpKind::kDiv) || !Computed(&div->input(1), OpKind::kSum)) return std::nullopt;
  m.sum = &div->input(1);
  const Node* e = &div->input(0);
  if (&m.sum->input(0) != e || KeptAxis(m.sum) < 0) return std::nullopt;  // not a softmax
  // From here on the matmul reads a normalization: say what keeps it from being attention.
  auto refuse = [&](std::string why) -> std::optional<AttentionMatch> {
    *why_not = std::move(why);
    return std::nullopt;
  };
  const int last = e->shape().rank() - 1;
  if (KeptAxis(m.sum) != last) {
    return refuse(absl::StrCat("the softmax runs over axis ", KeptAxis(m.sum),
                               ", not the keys' axis ", last));
  }
  if (!Computed(e, OpKind::kExp) || !Computed(&e->input(0), OpKind::kSub)) {
    return refuse("the normalized values are not exp(x - max(x))");
  }
  const Node* shifted = &e->input(0);
  m.logits = &shifted->input(0);
  m.max = &shifted->input(1);
  if (!Computed(m.max, OpKind::kMax) || &m.max->input(0) != m.logits || KeptAxis(m.max) != last) {
    return refuse("exp's argument is not x - max(x) over the keys' axis");
  }
  ScoreCone cone = FindScores(m.logits);
  if (!cone.error.empty()) return refuse(cone.error);
  m.scores = cone.scores;
  m.score_ops = std::move(cone.ops);
  m.score_inputs = std::move(cone.inputs);
  if (m.scores->shape() != m.logits->shape()) {
    return refuse("the scores are broadcast to a larger shape before the softmax");
  }
  m.q = &m.scores->input(0);
  m.k_t = &m.scores->input(1);
  m.v = &output->input(1);
  if (std::string why = OperandsRefusal(m); !why.empty()) return refuse(why);
  // The kernel reads k through k^T in place (fusion/writes.cc): a k^T that something else
  // reads, or that is returned, is written out transposed, which the kernel cannot read.
  // Another chain's scores may read it too (FindAttentionChains keeps both only if both are
  // chains).
  if (state.InProgram(m.k_t)) {
    for (const Node* c : state.consumers[state.Index(m.k_t)]) {
      if (c != m.scores && !(c->op() == OpKind::kMatmul && &c->input(1) == m.k_t)) {
        return refuse(absl::StrCat("k^T is also read by a ", OpName(c->op())));
      }
    }
    if (state.outputs.contains(m.k_t)) return refuse("k^T is a program output");
  }
  m.members = m.score_ops;
  for (const Node* n : {m.scores, m.max, shifted, e, m.sum, div, m.probs, output}) {
    if (std::find(m.members.begin(), m.members.end(), n) == m.members.end()) {
      m.members.push_back(n);
    }
  }
  for (const Node* n : m.members) {
    if (!state.InProgram(n)) return refuse("the chain has empty values");
  }
  std::sort(m.members.begin(), m.members.end(),
            [&](const Node* a, const Node* b) { return state.Index(a) < state.Index(b); });
  // Nothing outside may read the chain's values: the kernel never writes them.
  for (const Node* n : m.members) {
    if (n == output) continue;
    if (state.outputs.contains(n)) {
      return refuse(absl::StrCat("its ", OpName(n->op()), " is a program output"));
    }
    for (const Node* c : state.consumers[state.Index(n)]) {
      if (std::find(m.members.begin(), m.members.end(), c) == m.members.end()) {
        return refuse(
            absl::StrCat("its ", OpName(n->op()), " is also read by a ", OpName(c->op())));
      }
    }
  }
  return m;
}

}  // namespace tessel::fusion_internal
