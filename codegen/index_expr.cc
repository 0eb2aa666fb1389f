#include "codegen/index_expr.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error.h"

namespace tessel::codegen {

bool IndexExpr::PerLane() const {
  if (!linear.empty()) return linear_lane;
  for (bool l : lane) {
    if (l) return true;
  }
  return false;
}

std::string IndexExpr::Guard() const {
  const std::string lane = PerLane() ? lane_guard : "";
  if (lane.empty() || thread_guard.empty()) return lane.empty() ? thread_guard : lane;
  return absl::StrCat(thread_guard, " && ", lane);
}

std::string IndexExpr::Key() const {
  // By dimensions, which every position has: the same element reached through a linear
  // position (a reshape) or per dimension has one key, so its value is computed once.
  const std::string guard = Guard();
  return absl::StrCat(absl::StrJoin(dims, ","), guard.empty() ? "" : absl::StrCat(" if ", guard));
}

IndexExpr WithGuards(IndexExpr to, const IndexExpr& from) {
  to.thread_guard = from.thread_guard;
  to.lane_guard = to.PerLane() ? from.lane_guard : "";
  return to;
}

IndexExpr FromLinear(const Shape& shape, const std::string& linear, bool lane, int vector_width) {
  IndexExpr idx;
  idx.linear = linear;
  idx.linear_lane = lane;
  idx.vector_width = vector_width;
  const Shape::Dims strides = shape.Strides();
  bool outer = false;  // an earlier dimension has extent > 1: this one wraps
  for (int d = 0; d < shape.rank(); ++d) {
    std::string e;
    if (shape[d] == 1) {
      e = "0";
    } else {
      e = strides[d] == 1 ? linear : absl::StrCat("(", linear, " / ", strides[d], ")");
      // Without an outer dimension the quotient is already below the extent; leaving out the
      // remainder also keeps one position one text (a value bound at [1,1,n] is found again).
      if (outer) e = absl::StrCat("(", e, " % ", shape[d], ")");
      outer = true;
    }
    idx.dims.push_back(e);
    idx.lane.push_back(lane && e != "0");
  }
  return idx;
}

IndexExpr FromDims(const Shape& shape, std::vector<std::string> dims, std::vector<bool> lane) {
  IndexExpr idx;
  for (int d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 1) {
      dims[d] = "0";
      lane[d] = false;
    }
  }
  idx.dims = std::move(dims);
  idx.lane = std::move(lane);
  return idx;
}

IndexExpr AlongDim(IndexExpr idx, const Shape& shape, int dim, int group) {
  idx.lane_dim = dim;
  idx.lane_group = group;
  bool innermost = shape[dim] % group == 0;
  for (int d = dim + 1; d < shape.rank(); ++d) innermost = innermost && shape[d] == 1;
  if (innermost && idx.linear.empty()) idx.vector_width = group;
  return idx;
}

std::string LinearOffset(const IndexExpr& idx, const Shape& shape) {
  if (!idx.linear.empty()) return idx.linear;
  const Shape::Dims strides = shape.Strides();
  std::vector<std::string> terms;
  for (int d = 0; d < shape.rank(); ++d) {
    if (idx.dims[d] == "0") continue;
    terms.push_back(strides[d] == 1 ? idx.dims[d] : absl::StrCat(idx.dims[d], " * ", strides[d]));
  }
  if (terms.empty()) return "0";
  return terms.size() == 1 ? terms[0] : absl::StrCat("(", absl::StrJoin(terms, " + "), ")");
}

namespace {

// The dimensions of `shape` with extent > 1.
std::vector<int> Proper(const Shape& shape) {
  std::vector<int> dims;
  for (int d = 0; d < shape.rank(); ++d) {
    if (shape[d] != 1) dims.push_back(d);
  }
  return dims;
}

IndexExpr ReshapedUnguarded(const IndexExpr& idx, const Shape& from, const Shape& to) {
  const std::vector<int> a = Proper(from), b = Proper(to);
  bool same = a.size() == b.size();
  for (size_t i = 0; same && i < a.size(); ++i) same = from[a[i]] == to[b[i]];
  if (same) {
    // Extent-1 axes added or dropped: each coordinate carries over as it is (so that a value
    // bound at one position is found at the same text from the other shape).
    std::vector<std::string> dims(to.rank(), "0");
    std::vector<bool> lane(to.rank(), false);
    for (size_t i = 0; i < a.size(); ++i) {
      dims[b[i]] = idx.dims[a[i]];
      lane[b[i]] = idx.lane[a[i]];
    }
    IndexExpr result = FromDims(to, std::move(dims), std::move(lane));
    result.linear = idx.linear;
    result.linear_lane = idx.linear_lane;
    result.vector_width = idx.vector_width;
    return result;
  }
  if (!idx.linear.empty()) return FromLinear(to, idx.linear, idx.linear_lane, idx.vector_width);
  return FromLinear(to, LinearOffset(idx, from), idx.PerLane(), 1);
}

IndexExpr BroadcastUnguarded(const IndexExpr& idx, const Shape& out, const Shape& in) {
  std::vector<std::string> dims;
  std::vector<bool> lane;
  const int offset = out.rank() - in.rank();
  bool suffix = in.rank() > 0;  // `in` is out's trailing dimensions, repeated along the rest
  for (int d = 0; d < in.rank(); ++d) {
    const bool repeated = in[d] == 1;
    dims.push_back(repeated ? "0" : idx.dims[offset + d]);
    lane.push_back(!repeated && idx.lane[offset + d]);
    suffix = suffix && in[d] == out[offset + d];
  }
  IndexExpr result = FromDims(in, std::move(dims), std::move(lane));
  // A bias along the last axes: lanes contiguous in `out` stay contiguous in `in` (a group
  // never straddles two repeats when the repeat is a multiple of the group), so vector
  // loads still apply.
  if (suffix && idx.vector_width > 1 && in.numel() % idx.vector_width == 0) {
    result.linear_lane = result.PerLane();  // from the dimensions, before `linear` is set
    result.linear = LinearOffset(result, in);
    result.vector_width = idx.vector_width;
  }
  return result;
}

IndexExpr ThroughViewUnguarded(const Node& view, const IndexExpr& idx) {
  const Shape& in = view.input(0).shape();
  const std::vector<int64_t>& a = view.attrs().ints;
  switch (view.op()) {
    case OpKind::kReshape:
      return ReshapedUnguarded(idx, view.shape(), in);
    case OpKind::kPermute: {
      std::vector<std::string> dims(in.rank());
      std::vector<bool> lane(in.rank());
      for (int i = 0; i < in.rank(); ++i) {
        dims[a[i]] = idx.dims[i];
        lane[a[i]] = idx.lane[i];
      }
      IndexExpr result = FromDims(in, std::move(dims), std::move(lane));
      // (An extent-1 axis keeps no lanes: FromDims dropped them.)
      if (idx.lane_dim < 0 || in[a[idx.lane_dim]] == 1) return result;
      return AlongDim(std::move(result), in, static_cast<int>(a[idx.lane_dim]), idx.lane_group);
    }
    case OpKind::kBroadcast:
      return BroadcastUnguarded(idx, view.shape(), in);
    case OpKind::kSlice: {
      std::vector<std::string> dims = idx.dims;
      std::string& d = dims[a[0]];
      if (a.size() > 3) d = absl::StrCat("(", d, ") * ", a[3]);  // d may be a sum
      if (a[1] != 0) d = absl::StrCat("(", d, " + ", a[1], ")");
      return FromDims(in, std::move(dims), idx.lane);
    }
    case OpKind::kFlip: {
      std::vector<std::string> dims = idx.dims;
      for (int64_t axis : a) dims[axis] = absl::StrCat("(", in[axis] - 1, " - (", dims[axis], "))");
      return FromDims(in, std::move(dims), idx.lane);
    }
    default:
      TESSEL_CHECK(false, "not a view: ", OpName(view.op()));
      return idx;
  }
}

}  // namespace

IndexExpr Broadcast(const IndexExpr& idx, const Shape& out, const Shape& in) {
  if (in == out) return idx;
  return WithGuards(BroadcastUnguarded(idx, out, in), idx);
}

IndexExpr Reshaped(const IndexExpr& idx, const Shape& from, const Shape& to) {
  return WithGuards(ReshapedUnguarded(idx, from, to), idx);
}

IndexExpr ThroughView(const Node& view, const IndexExpr& idx) {
  return WithGuards(ThroughViewUnguarded(view, idx), idx);
}

}  // namespace tessel::codegen
