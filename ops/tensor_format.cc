#include "ops/tensor_format.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ops/structure.h"

namespace tessel {
namespace {

// Past this many elements a tensor prints summarized: each axis longer than 2 * kEdge shows
// its first and last kEdge entries around "...", as PyTorch does.
constexpr int64_t kEdge = 3;

// How every element of one tensor is written: one notation for all, so that columns align.
struct Notation {
  enum Kind { kInteger, kBool, kWhole, kFixed, kScientific } kind;
  int width = 0;
};

std::string Special(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

// A floating or bool element (integers print exactly from int64, Printer::Text).
std::string Element(double v, const Notation& n) {
  switch (n.kind) {
    case Notation::kBool:
      return v != 0 ? "True" : "False";
    default:
      break;
  }
  if (!std::isfinite(v)) return Special(v);
  if (n.kind == Notation::kWhole) return absl::StrFormat("%.0f.", v);
  if (n.kind == Notation::kFixed) return absl::StrFormat("%.4f", v);
  return absl::StrFormat("%.4e", v);
}

// PyTorch's choice: whole numbers print as "3.", values spanning more than three decades or
// outside [1e-4, 1e8) in scientific notation, the rest with four decimals.
Notation ChooseNotation(DType dtype, const std::vector<double>& shown) {
  Notation n{Notation::kFixed};
  if (dtype == DType::kBool) {
    n.kind = Notation::kBool;
  } else if (!IsFloating(dtype)) {
    n.kind = Notation::kInteger;
  } else {
    double largest = 0, smallest = INFINITY;
    bool whole = true;
    for (double v : shown) {
      if (!std::isfinite(v)) continue;
      whole = whole && v == std::floor(v);
      const double a = std::fabs(v);
      largest = std::max(largest, a);
      if (a > 0) smallest = std::min(smallest, a);
    }
    if (whole && largest < 1e8) {
      n.kind = Notation::kWhole;
    } else if (largest >= 1e8 || smallest < 1e-4 || largest / smallest > 1e3) {
      n.kind = Notation::kScientific;
    }
  }
  return n;
}

// Whether an axis of `extent` prints summarized: its first and last kEdge entries only.
bool Summarized(int64_t extent, bool summarize) { return summarize && extent > 2 * kEdge; }

// The entries of each axis of a tensor of `shape` that print, -1 for "...": of the tensor
// itself, or (`edges`) of Edges(tensor), whose summarized axes hold their 2 * kEdge edges.
std::vector<std::vector<int64_t>> ShownEntries(const Shape& shape, bool summarize, bool edges) {
  std::vector<std::vector<int64_t>> shown(shape.rank());
  for (int a = 0; a < shape.rank(); ++a) {
    const int64_t n = shape[a];
    std::vector<int64_t>& entries = shown[a];
    if (!Summarized(n, summarize)) {
      for (int64_t i = 0; i < n; ++i) entries.push_back(i);
      continue;
    }
    const int64_t last = edges ? kEdge : n - kEdge;
    for (int64_t i = 0; i < kEdge; ++i) entries.push_back(i);
    entries.push_back(-1);
    for (int64_t i = last; i < last + kEdge; ++i) entries.push_back(i);
  }
  return shown;
}

// t's entries that a summary shows, each summarized axis cut to its edges.
Tensor Edges(Tensor t) {
  for (int a = 0; a < t.rank(); ++a) {
    const int64_t n = t.shape()[a];
    if (!Summarized(n, true)) continue;
    t = concat({slice(t, a, 0, kEdge), slice(t, a, n - kEdge, n)}, a);
  }
  return t;
}

class Printer {
 public:
  // `values` of a tensor of `shape`, `entries` the ones that print (ShownEntries);
  // `integers`: the same values exactly, for integer dtypes (i64 past 2^53); else empty.
  Printer(const Shape& shape, const std::vector<double>& values,
          const std::vector<int64_t>& integers, std::vector<std::vector<int64_t>> entries,
          size_t indent)
      : shape_(shape),
        values_(values),
        integers_(integers),
        entries_(std::move(entries)),
        indent_(indent) {}

  // Sets the notation, and the column width from the elements that print.
  void set_notation(const Notation& n) {
    notation_ = n;
    notation_.width = 0;
    Visit(0, 0, [&](int64_t i) {
      notation_.width = std::max(notation_.width, static_cast<int>(Text(i).size()));
    });
  }

  std::string Text(int64_t i) const {
    if (notation_.kind == Notation::kInteger) return absl::StrCat(integers_[i]);
    return Element(values_[i], notation_);
  }

  // Calls f(linear index) for every element that prints.
  template <typename F>
  void Visit(int axis, int64_t offset, F&& f) const {
    if (axis == shape_.rank()) {
      f(offset);
      return;
    }
    for (int64_t i : entries_[axis]) {
      if (i >= 0) Visit(axis + 1, offset * shape_[axis] + i, f);
    }
  }

  std::string Format(int axis, int64_t offset) const {
    if (axis == shape_.rank()) {
      const std::string e = Text(offset);
      return std::string(notation_.width - e.size(), ' ') + e;
    }
    const bool last = axis + 1 == shape_.rank();
    // Rows of the last axis end in ",\n"; blocks of higher axes leave a blank line between.
    const std::string separator =
        last ? ", "
             : absl::StrCat(",", std::string(shape_.rank() - axis - 1, '\n'),
                            std::string(indent_ + axis + 1, ' '));
    std::vector<std::string> parts;
    for (int64_t i : entries_[axis]) {
      if (i < 0) {
        parts.push_back(last ? " ..." : "...");  // PyTorch's spacing
      } else {
        parts.push_back(Format(axis + 1, offset * shape_[axis] + i));
      }
    }
    return absl::StrCat("[", absl::StrJoin(parts, separator), "]");
  }

 private:
  const Shape& shape_;
  const std::vector<double>& values_;
  const std::vector<int64_t>& integers_;
  std::vector<std::vector<int64_t>> entries_;
  size_t indent_;
  Notation notation_{Notation::kFixed};
};

std::string Suffix(const Tensor& t) {
  std::string s;
  if (t.dtype() != DType::kF32) absl::StrAppend(&s, ", dtype=", DTypeName(t.dtype()));
  if (t.device() == Device::kCUDA) absl::StrAppend(&s, ", device=cuda:", t.node().device_index());
  return s;
}

}  // namespace

std::string to_string(const Tensor& t, int max_elements) {
  if (!t.defined()) return "Tensor()";
  const Shape& shape = t.shape();
  if (shape.numel() == 0) {
    return absl::StrCat("tensor([], shape=", shape.ToString(), Suffix(t), ")");
  }
  const bool summarize = shape.numel() > max_elements;
  // A summary of a tensor not yet realized computes only the entries it shows (a huge lazy
  // expression is never computed whole to print 6 of its rows); a realized one reads them
  // from its values.
  const bool edges = summarize && !t.realized();
  const Tensor printed = edges ? Edges(t) : t;
  const std::vector<double> values = printed.to_vector<double>();
  const bool integral = !IsFloating(t.dtype()) && t.dtype() != DType::kBool;
  const std::vector<int64_t> integers =
      integral ? printed.to_vector<int64_t>() : std::vector<int64_t>{};
  constexpr absl::string_view kOpen = "tensor(";
  Printer printer(printed.shape(), values, integers, ShownEntries(shape, summarize, edges),
                  kOpen.size());
  std::vector<double> shown;
  printer.Visit(0, 0, [&](int64_t i) { shown.push_back(values[i]); });
  printer.set_notation(ChooseNotation(t.dtype(), shown));
  return absl::StrCat(kOpen, printer.Format(0, 0), Suffix(t), ")");
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << to_string(t); }

}  // namespace tessel
