#include "backend/dynamic_extents.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"

namespace tessel::backend {

ProgramExtents ExtentsAndBounds(const OrderedProgram& program) {
  ProgramExtents e;
  for (const Node* n : program.order) {
    for (int d = 0; d < n->shape().rank(); ++d) {
      e.values.push_back(n->shape()[d]);
      e.positions.push_back({n, d});
    }
  }
  for (const Node* n : program.order) {
    if (n->op() != OpKind::kSlice || n->realized()) continue;
    e.values.insert(e.values.end(), {n->attrs().ints[1], n->attrs().ints[2]});
    e.positions.push_back({n, ProgramExtents::kStart});
    e.positions.push_back({n, ProgramExtents::kEnd});
  }
  return e;
}

namespace {

bool IsBound(const ProgramExtents::Position& p) { return p.dim < 0; }

// Bucket k of a value: [2^k, 2^(k+1) - 1].
int BucketOf(int64_t value) {
  int bucket = 0;
  while ((int64_t{2} << bucket) <= value) ++bucket;
  return bucket;
}

// The bucket's largest value rounded up to a multiple of 8 (16-byte rows of 16-bit values),
// then moved on by 8 while it equals a static extent or another symbol's capacity, so that
// the planner never mistakes a symbol for another extent.
void ChooseCapacities(const ProgramExtents& extents, SymbolChoice& choice) {
  for (size_t s = 0; s < choice.symbols.size(); ++s) {
    int64_t capacity = ((int64_t{2} << choice.symbols[s].bucket) - 1 + 7) / 8 * 8;
    auto taken = [&](int64_t c) {
      for (size_t i = 0; i < extents.values.size(); ++i) {
        if (choice.symbol_of[i] < 0 && !IsBound(extents.positions[i]) && extents.values[i] == c) {
          return true;
        }
      }
      for (size_t t = 0; t < s; ++t) {
        if (choice.symbols[t].capacity == c) return true;
      }
      return false;
    };
    while (taken(capacity)) capacity += 8;
    choice.symbols[s].capacity = capacity;
  }
}

}  // namespace

std::optional<SymbolChoice> ChooseSymbols(const ProgramExtents& extents, Family& family) {
  const std::vector<int64_t>& values = extents.values;
  if (family.first.empty() && family.dynamic.empty()) {
    family.first = values;
    family.dynamic.assign(values.size(), false);
    return std::nullopt;
  }
  if (values.size() != family.first.size()) return std::nullopt;
  bool any = false;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] != family.first[i]) family.dynamic[i] = true;
    any = any || family.dynamic[i];
  }
  if (!any) return std::nullopt;
  SymbolChoice choice;
  choice.symbol_of.assign(values.size(), -1);
  choice.offset.assign(values.size(), 0);
  std::vector<int64_t> first_value;  // each symbol's value in the family's first program
  for (size_t i = 0; i < values.size(); ++i) {
    if (!family.dynamic[i] || IsBound(extents.positions[i])) continue;
    int s = 0;
    while (s < static_cast<int>(choice.symbols.size()) && choice.symbols[s].value != values[i]) {
      ++s;
    }
    if (s == static_cast<int>(choice.symbols.size())) {
      if (values[i] < 2) return std::nullopt;
      choice.symbols.push_back({values[i], BucketOf(values[i]), 0});
      first_value.push_back(family.first[i]);
    }
    choice.symbol_of[i] = s;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (!family.dynamic[i] || !IsBound(extents.positions[i])) continue;
    for (size_t s = 0; s < choice.symbols.size() && choice.symbol_of[i] < 0; ++s) {
      const int64_t c = values[i] - choice.symbols[s].value;
      if (family.first[i] - first_value[s] == c) {
        choice.symbol_of[i] = static_cast<int>(s);
        choice.offset[i] = c;
      }
    }
    if (choice.symbol_of[i] < 0) return std::nullopt;  // a bound that moves on its own
  }
  ChooseCapacities(extents, choice);
  return choice;
}

std::optional<DynamicChoice> ChooseDynamicRows(const OrderedProgram& program,
                                               const ProgramExtents& extents, Family& family) {
  std::optional<SymbolChoice> symbols = ChooseSymbols(extents, family);
  if (!symbols.has_value() || symbols->symbols.size() != 1) return std::nullopt;  // one B
  DynamicChoice choice;
  choice.rows = symbols->symbols[0].value;
  choice.bucket = symbols->symbols[0].bucket;
  absl::flat_hash_set<const Node*>& fixed = choice.dynamic.fixed;
  for (size_t i = 0; i < extents.values.size(); ++i) {
    if (symbols->symbol_of[i] < 0) continue;
    const ProgramExtents::Position& p = extents.positions[i];
    if (IsBound(p)) return std::nullopt;  // (bounds are in the family key: never reached)
    (p.dim == 0 ? choice.dynamic.nodes : fixed).insert(p.node);
  }
  for (const Node* n : program.order) {
    // Reversing the batch axis reads at (B - 1 - row), and a gather along it checks its
    // indices against B: the extent itself is in the index math.
    const std::vector<int64_t>& axes = n->attrs().ints;
    if (n->realized()) continue;  // a leaf now: only read
    const bool flips = n->op() == OpKind::kFlip && choice.dynamic.Has(n) &&
                       std::find(axes.begin(), axes.end(), 0) != axes.end();
    const bool gathers =
        n->op() == OpKind::kGather && axes[0] == 0 && choice.dynamic.Has(n->inputs()[0].get());
    if (flips || gathers) choice.dynamic.fixed_math.insert(n);
  }
  for (const Node* n : fixed) choice.dynamic.nodes.erase(n);
  if (choice.dynamic.nodes.empty()) return std::nullopt;  // nothing takes the batch
  for (size_t i = 0; i < extents.values.size(); ++i) {
    if (symbols->symbol_of[i] < 0 && !IsBound(extents.positions[i]) &&
        extents.values[i] == choice.rows) {
      return std::nullopt;  // ambiguous
    }
  }
  if (std::find(family.refused_buckets.begin(), family.refused_buckets.end(), choice.bucket) !=
      family.refused_buckets.end()) {
    return std::nullopt;
  }
  choice.dynamic.max = (int64_t{2} << choice.bucket) - 1;
  choice.dynamic.min = int64_t{1} << choice.bucket;
  choice.symbols = *std::move(symbols);
  return choice;
}

std::vector<int64_t> DynamicKey(std::vector<int64_t> family_key, const ProgramExtents& extents,
                                const SymbolChoice& choice) {
  std::vector<int64_t>& key = family_key;
  key.push_back(-3);
  key.push_back(static_cast<int64_t>(choice.symbols.size()));
  for (const Symbol& s : choice.symbols) key.insert(key.end(), {s.bucket, s.capacity});
  for (size_t i = 0; i < extents.values.size(); ++i) {
    const int s = choice.symbol_of[i];
    if (s < 0) {
      key.push_back(extents.values[i]);
    } else if (IsBound(extents.positions[i])) {
      key.insert(key.end(), {-(1001 + s), choice.offset[i]});
    } else {
      key.push_back(-(1 + s));
    }
  }
  return key;
}

}  // namespace tessel::backend
