#include "fusion/access.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace tessel {
namespace {

// Per dimension of a value: the axis of the kernel's space whose coordinate this one follows
// at unit stride, or one of these.
constexpr int kFixed = -1;  // the same for every position (extent 1, a broadcast)
constexpr int kOther = -2;  // moves otherwise (an outer piece of a reshape, an index)
using AxisMap = std::vector<int>;

// Where an operand of shape `in`, NumPy-broadcast to `out`, is read.
AxisMap Broadcast(const AxisMap& m, const Shape& out, const Shape& in) {
  AxisMap r(in.rank(), kFixed);
  const int offset = out.rank() - in.rank();
  for (int d = 0; d < in.rank(); ++d) r[d] = in[d] == 1 ? kFixed : m[offset + d];
  return r;
}

// Through a reshape from `in` to `out`: matching groups of axes from the innermost out; the
// innermost axis of each of in's groups follows the innermost of out's group at unit stride.
AxisMap Reshape(const AxisMap& m, const Shape& out, const Shape& in) {
  AxisMap r(in.rank(), kFixed);
  int i = in.rank() - 1, o = out.rank() - 1;
  while (i >= 0 && o >= 0) {
    if (in[i] == 1) {
      --i;
      continue;
    }
    if (out[o] == 1) {
      --o;
      continue;
    }
    r[i] = m[o];
    int64_t in_size = in[i--], out_size = out[o--];
    while (in_size != out_size && i >= 0 && o >= 0) {
      if (in_size < out_size) {
        if (in[i] != 1) r[i] = kOther;
        in_size *= in[i--];
      } else {
        out_size *= out[o--];
      }
    }
  }
  return r;
}

AxisMap ThroughView(const Node& view, const AxisMap& m) {
  const Shape& in = view.input(0).shape();
  const std::vector<int64_t>& a = view.attrs().ints;
  switch (view.op()) {
    case OpKind::kReshape:
      return Reshape(m, view.shape(), in);
    case OpKind::kPermute: {
      AxisMap r(in.rank(), kFixed);
      for (int i = 0; i < in.rank(); ++i) r[a[i]] = m[i];
      return r;
    }
    case OpKind::kBroadcast:
      return Broadcast(m, view.shape(), in);
    default:  // slices and flips keep each axis where it is
      return m;
  }
}

class AccessWalk {
 public:
  // `across`: the axis whose steps in the inputs across_stride() reports.
  AccessWalk(const FusedKernel& k, int across)
      : nodes_(k.nodes.begin(), k.nodes.end()),
        inputs_(k.inputs.begin(), k.inputs.end()),
        across_(across) {}

  // Bytes of inputs read along each axis of the space (kOther: not along one).
  const absl::flat_hash_map<int, double>& bytes() const { return bytes_; }
  // The longest step along `across` (bytes) in the inputs read along each axis.
  int64_t across_stride(int along) const {
    const auto it = across_stride_.find(along);
    return it == across_stride_.end() ? 0 : it->second;
  }

  void Visit(const Node* n, const AxisMap& m) {
    if (inputs_.contains(n)) {
      Read(n, m);
      return;
    }
    if (!nodes_.contains(n) || !seen_.insert({n, m}).second) return;
    const OpCategory category = GetOpInfo(n->op()).category;
    for (int i = 0; i < static_cast<int>(n->inputs().size()); ++i) {
      const Node& in = n->input(i);
      switch (category) {
        case OpCategory::kElementwise:
          Visit(&in, Broadcast(m, n->shape(), in.shape()));
          break;
        case OpCategory::kView:
          Visit(&in, ThroughView(*n, m));
          break;
        case OpCategory::kConcat:  // each part at its offset along the axis
          Visit(&in, m);
          break;
        default:  // read at positions the data gives
          Visit(&in, AxisMap(in.shape().rank(), kOther));
      }
    }
  }

 private:
  void Read(const Node* n, const AxisMap& m) {
    int inner = n->shape().rank() - 1;
    while (inner >= 0 && n->shape()[inner] == 1) --inner;
    if (inner < 0) return;  // one element
    const int along = m[inner] == kFixed ? kOther : m[inner];
    if (!read_.insert({n, along}).second) return;
    bytes_[along] += static_cast<double>(n->shape().numel()) * DTypeSize(n->dtype());
    const Shape::Dims strides = n->shape().Strides();
    for (int d = 0; d < n->shape().rank(); ++d) {
      if (m[d] != across_) continue;
      int64_t& longest = across_stride_[along];
      longest = std::max(longest, strides[d] * DTypeSize(n->dtype()));
    }
  }

  absl::flat_hash_set<const Node*> nodes_, inputs_;
  absl::flat_hash_set<std::pair<const Node*, AxisMap>> seen_;
  absl::flat_hash_set<std::pair<const Node*, int>> read_;
  absl::flat_hash_map<int, double> bytes_;
  const int across_;
  absl::flat_hash_map<int, int64_t> across_stride_;
};

}  // namespace

TransposedAxes TransposedAccess(const FusedKernel& kernel, int64_t min_extent) {
  if (kernel.kind != KernelKind::kPointwise || kernel.segments.size() != 1) return {};
  const Shape& space = kernel.segments[0];
  int across = space.rank() - 1;
  while (across >= 0 && space[across] == 1) --across;
  if (across < 0 || space[across] < min_extent) return {};
  AxisMap identity(space.rank());
  for (int d = 0; d < space.rank(); ++d) identity[d] = space[d] == 1 ? kFixed : d;
  AccessWalk walk(kernel, across);
  for (const Node* out : kernel.outputs) walk.Visit(out, identity);
  int along = -1;
  double most = 0;
  for (const auto& [axis, bytes] : walk.bytes()) {
    if (axis >= 0 && axis != across && space[axis] >= min_extent &&
        (bytes > most || (bytes == most && axis > along))) {
      along = axis;
      most = bytes;
    }
  }
  const auto aligned = walk.bytes().find(across);
  if (along < 0 || (aligned != walk.bytes().end() && aligned->second >= most)) return {};
  return {along, across, walk.across_stride(along)};
}

}  // namespace tessel
