// How a sort (argsort, sort, topk) runs: its lines, and the launches that sort them
// (codegen/sort_codegen.cc writes them; the algorithm is in codegen/device/sort.cuh and
// sort_threshold.cuh).
//
// A line of at most kSortPart elements is one block's work: one launch writes the result. Longer
// lines are cut into parts of kSortPart, each giving a sorted run of its first k items (in the
// workspace); then
//   - small k (a part can select them: k <= kSortChosen): further launches select the first k
//     of the concatenated runs again, kSortPart items per block, until one part is left;
//   - large k: runs (a power of two per line, the last ones padding) merge pairwise, one
//     launch per doubling, kMergeTile outputs per block (merge path).
// The last launch writes the positions. The same input gives the same result (items are
// distinct: any race in collecting them is ordered by the sort that follows).
//
// Small k over long contiguous lines first tries a sampled threshold (Threshold): three
// launches that read each line once and write the lines they can; the parts' launches then
// walk only the lines left.
#pragma once

#include <cstdint>
#include <vector>

#include "core/node.h"

namespace tessel::codegen {

// Threads of a block (a part's block holds kSortPart / kSortThreads keys in each thread's
// registers).
constexpr int kSortThreads = 256;
constexpr int64_t kSortPart = 4096;
constexpr int64_t kSortChosen = kSortPart / 4;
constexpr int kMergeTile = 2048;  // kSortThreads x 8
// Words after a part's items in shared memory (sort.cuh's tessel_sort_space): 256 bins, the
// bin found (3), the chosen and candidate counters.
constexpr int kHistWords = 261;

// The least power of two at or above n (1 for n <= 1).
int64_t PowerOfTwoAtLeast(int64_t n);

// A sort's input seen as [outer, along, inner]: lines of `along` items.
struct SortLines {
  int64_t outer = 1, along = 1, inner = 1, lines = 1;
  int64_t k = 0;
  bool descending = false;
  bool wide_keys = false;    // 8-byte keys (f64, i64)
  int64_t part = kSortPart;  // items a block holds
  int64_t chosen = kSortChosen;
  const char* Key() const { return wide_keys ? "unsigned long long" : "unsigned"; }
  int64_t ItemBytes() const { return (wide_keys ? 8 : 4) + 4; }
};

SortLines SortLinesOf(const Node& sort);

// One launch: how many blocks per line, what each reads and writes.
struct SortStep {
  // kSample, kFilter and kChoose: the threshold path (Threshold below), before the others.
  enum Kind { kFromInput, kSelect, kMerge, kSample, kFilter, kChoose } kind = kFromInput;
  int64_t parts = 1;      // blocks per line
  int64_t part = 0;       // items a block reads, where not the lines' part (kFilter)
  int64_t in_len = 0;     // items per line read from the workspace (kSelect, kMerge)
  int64_t out_slots = 0;  // items per part written to the workspace (kFromInput, kSelect)
  int64_t run = 0;        // kMerge: the length of the runs merged
  bool last = false;      // writes the positions
  int in_region = 0;      // workspace regions read and written (0 or 1)
};

// The parts' path: the first launch, then selections or merges.
std::vector<SortStep> PlanSteps(const SortLines& l);

// The threshold path (tessel/sort_threshold.cuh) for small k over long contiguous lines: a
// sample of kSamples keys per thread gives the j-th smallest of the threads' least, which
// about 4k of the line's keys are at or below; `cap` candidates fit per line. Where j would
// pass kMaxJ (lines too short for the sample to say much) the parts' path runs alone.
struct Threshold {
  static constexpr int kSamples = 16, kMaxJ = 16;
  // Items a filter block reads.
  static constexpr int64_t kFilterPart = 4096;
  static constexpr int64_t kMaxK = 64;
  int j = 0;           // 0: off
  int64_t cap = 0;     // candidates a line holds
  int64_t stride = 0;  // between threads' samples
  bool On() const { return j > 0; }
};

// The threshold path's parameters for these lines (Off where it does not apply).
Threshold ThresholdOf(const SortLines& l, const std::vector<SortStep>& steps);

// Whether s is one of the threshold path's launches.
bool OfThreshold(const SortStep& s);

// The threshold path's launches, then the parts' path.
std::vector<SortStep> WithThreshold(const SortLines& l, std::vector<SortStep> steps);

// Items per line that a region must hold: the most any step writes.
int64_t RegionLength(const std::vector<SortStep>& steps);

// A launch's name suffix: "part", "merge", "filter", ...
const char* StepName(const SortStep& s);

}  // namespace tessel::codegen
