// Which extents of a program its kernels take as arguments, learned from the programs seen.
//
// [ Note -- dynamic extents ]
// A loop over batch sizes records the same program with another leading extent each time;
// compiling per value would compile every kernel per batch size. As TorchDynamo's automatic
// dynamic shapes do, tessel learns what varies: programs of one *family* (the same structure
// up to extents) are compared with the first of the family seen, and the extents that differ
// are dynamic from then on. The policy:
// - every dynamic extent of a program must be one value B (a batch). Kernels take B as their
//   `rows` argument (codegen::DynamicRows) where it is only values' leading extent (dim 0):
//   pointwise kernels over [B, ...], staged reductions and normalizations over other axes,
//   column reductions over the batch (a bias's gradient), and GEMMs with B rows or, on
//   Hopper with 16-bit values, with B as their K (a weight's gradient, read through
//   transposed views of [B, ...] values; not where a kernel made for the bucket's largest B
//   would cut few tiles' K into slices). A kernel that holds B elsewhere (a transposed view
//   it cannot read that way), computes a flip or a gather along the batch, or whose generator
//   cannot take the argument (a pointwise kernel of several shapes, an f32 GEMM whose K is
//   the batch, a scan) is specialized to the program's extents, and its plan then serves that
//   B alone (ReadyPlan::one_batch): the next B of the bucket plans again, compiling only
//   those kernels, the others loaded by source. Reductions of the whole batch to one value
//   (a loss's mean) stream it;
// - B = 1, and a B equal to a static extent of the program, are specialized (broadcasting and
//   the planner's shape comparisons could tell such a B apart);
// - a plan serves one power-of-two bucket of B, [2^k, 2^(k+1) - 1], its decisions (index
//   width, GEMM tiles) made for the bucket's largest value, but a GEMM's tile rows for its
//   smallest where they differ (codegen/gemm_sm90_tiles.cc's ChooseWalk: a batch of 64 on
//   tiles for 127 rows ran 33% slower): a loop over B = 1..512 builds at
//   most 10 plans of a family (the first program's and nine buckets), plus one for each B
//   equal to a static extent, whatever the order.
// The varying values are grouped into symbols (ChooseSymbols): extents of one value, and
// slice bounds that keep their distance to one, as `slice(logits, 0, t - 1, t)` does to t. A
// sequence length that grows in a generation loop is thus one symbol at every dim it
// reaches. Only a single symbol at leading extents runs with dynamic rows so far, and slice
// bounds stay in the family key (StructureKey) until kernels take symbols: within a family
// they do not vary yet (docs/plans/dynamic_sequence_lengths.md).
// Marks never clear: a family whose other extents have varied once specializes from then on.
// Anything else (two dynamic extents with different values, a batch of one, a batch equal to
// a static extent, a program where no value has the batch only at dim 0) is specialized to
// the program's exact extents.
#ifndef TESSEL_BACKEND_DYNAMIC_EXTENTS_H_
#define TESSEL_BACKEND_DYNAMIC_EXTENTS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "backend/program_key.h"
#include "codegen/kernel_source.h"

namespace tessel::backend {

// A program's learnable values in one order: every node's dims, then each slice's start and
// end (extent-relative bounds, as `slice(x, 0, t - 1, t)` over a growing t has).
struct ProgramExtents {
  struct Position {
    const Node* node;
    int dim;  // the node's dim, or kStart / kEnd of a slice
  };
  static constexpr int kStart = -1, kEnd = -2;
  std::vector<int64_t> values;
  std::vector<Position> positions;
};
ProgramExtents ExtentsAndBounds(const OrderedProgram& program);

// What the family has seen: the values of its first program and which of them have differed
// since.
struct Family {
  std::vector<int64_t> first;
  std::vector<bool> dynamic;
  // Buckets whose plan could not take rows: specialized without trying again.
  std::vector<int> refused_buckets;
};

// A value the kernels would take as an argument: the varying extents of one value now.
struct Symbol {
  int64_t value = 0;
  int bucket = 0;        // value in [2^bucket, 2^(bucket+1) - 1]
  int64_t capacity = 0;  // the extent a plan for the bucket is laid out at (a multiple of 8)
};

// Which positions vary, as symbols: per position, -1 (static) or its symbol, and for a slice
// bound the constant c of `symbol + c`.
struct SymbolChoice {
  std::vector<Symbol> symbols;
  std::vector<int> symbol_of;
  std::vector<int64_t> offset;
};

// Updates `family` with this program's values and groups the varying ones into symbols: the
// extents of equal value into one, a slice bound into the symbol s for which bound - s is
// the same as in the family's first program. nullopt: nothing varies, or a varying value
// fits no symbol (a bound that moves on its own, a symbol below 2).
std::optional<SymbolChoice> ChooseSymbols(const ProgramExtents& extents, Family& family);

struct DynamicChoice {
  int64_t rows = 0;  // B
  int bucket = 0;    // k: B in [2^k, 2^(k+1) - 1]
  codegen::DynamicRows dynamic;
  SymbolChoice symbols;
};

// Updates `family` with `extents` (this program's ExtentsAndBounds) and says whether the
// program runs with dynamic rows, and which: one symbol, at leading extents only.
std::optional<DynamicChoice> ChooseDynamicRows(const OrderedProgram& program,
                                               const ProgramExtents& extents, Family& family);

// The plan key of a dynamic choice: the family's key, then the symbols' buckets and
// capacities and every position as its value (static), -(1 + s) (an extent of symbol s) or
// -(1001 + s), c (a bound at symbol s + c). Symbols that coincide in one program make a
// different key from the same symbols apart: another plan, never a wrong one.
std::vector<int64_t> DynamicKey(std::vector<int64_t> family_key, const ProgramExtents& extents,
                                const SymbolChoice& choice);

}  // namespace tessel::backend

#endif  // TESSEL_BACKEND_DYNAMIC_EXTENTS_H_
