#include "core/strided_view.h"

namespace tessel {
namespace {

// A reshape of a strided layout of shape `in` to `out`: groups of axes with equal products,
// matched from the innermost out; each group's axes of extent > 1 must step through memory
// as one (each stride the next one's times its extent), and the new axes split that run.
std::optional<std::vector<int64_t>> Reshape(const Shape& in, const std::vector<int64_t>& strides,
                                            const Shape& out) {
  std::vector<int64_t> dims, steps;  // in's axes of extent > 1
  for (int d = 0; d < in.rank(); ++d) {
    if (in[d] != 1) dims.push_back(in[d]), steps.push_back(strides[d]);
  }
  std::vector<int64_t> result(out.rank(), 0);
  int i = static_cast<int>(dims.size()) - 1, o = out.rank() - 1;
  while (o >= 0) {
    if (out[o] == 1) {  // a new axis of extent 1: never stepped along
      --o;
      continue;
    }
    if (i < 0) return std::nullopt;
    // One group: in's axes i_first..i, out's o_first..o.
    int64_t in_size = dims[i], out_size = out[o];
    const int i_last = i;
    int o_first = o;
    while (in_size != out_size) {
      if (in_size < out_size) {
        if (--i < 0) return std::nullopt;
        if (steps[i] != steps[i + 1] * dims[i + 1]) return std::nullopt;
        in_size *= dims[i];
      } else {
        if (--o_first < 0) return std::nullopt;
        out_size *= out[o_first];
      }
    }
    int64_t step = steps[i_last];
    for (int a = o; a >= o_first; --a) {
      result[a] = step;
      step *= out[a];
    }
    --i;
    o = o_first - 1;
  }
  if (i >= 0) return std::nullopt;
  return result;
}

}  // namespace

std::optional<StridedLayout> LayoutOverViews(const Node& n,
                                             absl::FunctionRef<bool(const Node&)> stop) {
  if (n.shape().numel() == 0) return std::nullopt;
  if (stop(n) || GetOpInfo(n.op()).category != OpCategory::kView) {
    StridedLayout l;
    l.base = &n;
    const Shape::Dims strides = n.shape().Strides();
    l.strides.assign(strides.begin(), strides.end());
    return l;
  }
  std::optional<StridedLayout> below = LayoutOverViews(n.input(0), stop);
  if (!below) return std::nullopt;
  StridedLayout l = *std::move(below);
  const Shape& in = n.input(0).shape();
  const std::vector<int64_t>& a = n.attrs().ints;
  switch (n.op()) {
    case OpKind::kPermute: {
      std::vector<int64_t> s(a.size());
      for (size_t d = 0; d < a.size(); ++d) s[d] = l.strides[a[d]];
      l.strides = std::move(s);
      return l;
    }
    case OpKind::kSlice: {  // axis start end [step]
      l.offset += a[1] * l.strides[a[0]];
      if (a.size() > 3) l.strides[a[0]] *= a[3];
      return l;
    }
    case OpKind::kBroadcast: {
      const Shape& out = n.shape();
      std::vector<int64_t> s(out.rank(), 0);
      for (int d = 0; d < in.rank(); ++d) {
        const int o = out.rank() - in.rank() + d;
        s[o] = in[d] == out[o] ? l.strides[d] : 0;
      }
      l.strides = std::move(s);
      return l;
    }
    case OpKind::kReshape: {
      std::optional<std::vector<int64_t>> s = Reshape(in, l.strides, n.shape());
      if (!s) return std::nullopt;
      l.strides = *std::move(s);
      return l;
    }
    default:  // a flip steps backwards
      return std::nullopt;
  }
}

std::vector<MemoryAxis> MemoryAxes(const Shape& shape, const std::vector<int64_t>& strides,
                                   const std::vector<int>& axes) {
  std::vector<MemoryAxis> merged;
  for (int a : axes) {
    if (shape[a] == 1 || strides[a] == 0) continue;
    if (!merged.empty() && merged.back().stride == strides[a] * shape[a]) {
      merged.back().extent *= shape[a];
      merged.back().stride = strides[a];
      merged.back().axes.push_back(a);
      continue;
    }
    merged.push_back(MemoryAxis{shape[a], strides[a], {a}});
  }
  return merged;
}

}  // namespace tessel
