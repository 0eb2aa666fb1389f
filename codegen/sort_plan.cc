#include "codegen/sort_plan.h"

#include <algorithm>

namespace tessel::codegen {

int64_t PowerOfTwoAtLeast(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

SortLines SortLinesOf(const Node& sort) {
  const Shape& shape = sort.input(0).shape();
  const int axis = static_cast<int>(sort.attrs().ints.at(0));
  SortLines l;
  for (int d = 0; d < shape.rank(); ++d) {
    (d < axis ? l.outer : d == axis ? l.along : l.inner) *= shape[d];
  }
  l.lines = l.outer * l.inner;
  l.descending = sort.attrs().ints.at(1) != 0;
  l.k = sort.attrs().ints.at(2);
  const DType t = sort.input(0).dtype();
  l.wide_keys = t == DType::kF64 || t == DType::kI64;
  if (l.along <= kSortPart) {  // one block per line, sized to it
    l.part = PowerOfTwoAtLeast(std::max<int64_t>(l.along, 2));
    l.chosen = l.part / 4;
  }
  return l;
}

std::vector<SortStep> PlanSteps(const SortLines& l) {
  std::vector<SortStep> steps;
  SortStep first;
  first.parts = (l.along + l.part - 1) / l.part;
  const bool merge = first.parts > 1 && l.k > l.chosen;
  if (merge) first.parts = PowerOfTwoAtLeast(first.parts);
  first.out_slots = merge ? l.part : l.k;
  first.last = first.parts == 1;
  steps.push_back(first);
  int region = 0;  // the one the previous step wrote
  if (merge) {
    for (int64_t runs = first.parts, run = l.part; runs > 1; runs /= 2, run *= 2) {
      SortStep m;
      m.kind = SortStep::kMerge;
      m.run = run;
      m.in_len = first.parts * l.part;
      m.parts = (runs / 2) * (2 * run / kMergeTile);
      m.last = runs == 2;
      m.in_region = region;
      region ^= 1;
      steps.push_back(m);
    }
    return steps;
  }
  for (int64_t parts = first.parts; parts > 1;) {
    SortStep s;
    s.kind = SortStep::kSelect;
    s.in_len = parts * l.k;
    s.parts = (s.in_len + l.part - 1) / l.part;
    s.out_slots = l.k;
    s.last = s.parts == 1;
    s.in_region = region;
    region ^= 1;
    parts = s.parts;
    steps.push_back(s);
  }
  return steps;
}

Threshold ThresholdOf(const SortLines& l, const std::vector<SortStep>& steps) {
  Threshold t;
  if (l.inner != 1 || steps.front().parts < 2 || l.k < 1 || l.k > Threshold::kMaxK ||
      l.k > l.chosen) {
    return t;
  }
  const int64_t sampled = int64_t{kSortThreads} * Threshold::kSamples;
  const int64_t j = std::max<int64_t>(2, (4 * l.k * sampled + l.along - 1) / l.along);
  if (j > Threshold::kMaxJ) return t;
  t.j = static_cast<int>(j);
  static_assert(16 * Threshold::kMaxK <= 4 * kSortThreads,
                "tessel_choose_candidates sorts at most 4 candidates a thread");
  t.cap = std::max<int64_t>(256, PowerOfTwoAtLeast(16 * l.k));
  t.stride = l.along / kSortThreads;
  return t;
}

bool OfThreshold(const SortStep& s) {
  return s.kind == SortStep::kSample || s.kind == SortStep::kFilter || s.kind == SortStep::kChoose;
}

std::vector<SortStep> WithThreshold(const SortLines& l, std::vector<SortStep> steps) {
  SortStep sample, filter, choose;
  sample.kind = SortStep::kSample;
  filter.kind = SortStep::kFilter;
  filter.part = Threshold::kFilterPart;
  filter.parts = (l.along + filter.part - 1) / filter.part;
  choose.kind = SortStep::kChoose;
  steps.insert(steps.begin(), {sample, filter, choose});
  return steps;
}

int64_t RegionLength(const std::vector<SortStep>& steps) {
  int64_t len = 0;
  for (const SortStep& s : steps) {
    len = std::max(len, s.kind == SortStep::kMerge ? s.in_len : s.parts * s.out_slots);
  }
  return len;
}

const char* StepName(const SortStep& s) {
  switch (s.kind) {
    case SortStep::kFromInput:
      return "part";
    case SortStep::kSelect:
      return "select";
    case SortStep::kMerge:
      return "merge";
    case SortStep::kSample:
      return "sample";
    case SortStep::kFilter:
      return "filter";
    case SortStep::kChoose:
      return "choose";
  }
  return "";
}

}  // namespace tessel::codegen
