// Sort kernels: the first k positions of each line along an axis in sorted order (argsort,
// sort, topk), the shape seen as [outer, along, inner]. The algorithm is in
// codegen/device/sort.cuh; this file plans the launches and writes their entry points.
//
// A line of at most kPart elements is one block's work: one launch writes the result. Longer
// lines are cut into parts of kPart, each giving a sorted run of its first k items (in the
// workspace); then
//   - small k (a part can select them: k <= kChosen): further launches select the first k
//     of the concatenated runs again, kPart items per block, until one part is left;
//   - large k: runs (a power of two per line, the last ones padding) merge pairwise, one
//     launch per doubling, kMergeTile outputs per block (merge path).
// The last launch writes the positions. The same input gives the same result (items are
// distinct: any race in collecting them is ordered by the sort that follows).
//
// Small k over long contiguous lines first tries a sampled threshold (Threshold below,
// tessel/sort_threshold.cuh): three launches that read each line once and write the lines
// they can; the parts' launches then skip those lines.
#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"

namespace tessel::codegen {
namespace {

// Threads of a block (a part's block holds kPart / kThreads keys in each thread's registers).
constexpr int kThreads = 256;
constexpr int64_t kPart = 4096;
constexpr int64_t kChosen = kPart / 4;
constexpr int kMergeTile = 2048;  // kThreads x 8
// Words after a part's items in shared memory (sort.cuh's tessel_sort_space): 256 bins, the
// bin found (3), the chosen and candidate counters.
constexpr int kHistWords = 261;

int64_t PowerOfTwoAtLeast(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

struct SortLines {
  int64_t outer = 1, along = 1, inner = 1, lines = 1;
  int64_t k = 0;
  bool descending = false;
  bool wide_keys = false;  // 8-byte keys (f64, i64)
  int64_t part = kPart;    // items a block holds
  int64_t chosen = kChosen;
  const char* Key() const { return wide_keys ? "unsigned long long" : "unsigned"; }
  int64_t ItemBytes() const { return (wide_keys ? 8 : 4) + 4; }
};

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
  if (l.along <= kPart) {  // one block per line, sized to it
    l.part = PowerOfTwoAtLeast(std::max<int64_t>(l.along, 2));
    l.chosen = l.part / 4;
  }
  return l;
}

// One launch: how many blocks per line, what each reads and writes.
struct SortStep {
  // kSample, kFilter and kChoose: the threshold path (Threshold below), before the others.
  enum Kind { kFromInput, kSelect, kMerge, kSample, kFilter, kChoose } kind = kFromInput;
  int64_t parts = 1;      // blocks per line
  int64_t in_len = 0;     // items per line read from the workspace (kSelect, kMerge)
  int64_t out_slots = 0;  // items per part written to the workspace (kFromInput, kSelect)
  int64_t run = 0;        // kMerge: the length of the runs merged
  bool last = false;      // writes the positions
  int in_region = 0;      // workspace regions read and written (0 or 1)
};

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

// The threshold path (tessel/sort_threshold.cuh) for small k over long contiguous lines: a
// sample of kSamples keys per thread gives the j-th smallest of the threads' least, which
// about 4k of the line's keys are at or below; `cap` candidates fit per line. Where j would
// pass kMaxJ (lines too short for the sample to say much) the parts' path runs alone.
struct Threshold {
  static constexpr int kSamples = 16, kMaxJ = 16;
  static constexpr int64_t kMaxK = 64;
  int j = 0;           // 0: off
  int64_t cap = 0;     // candidates a line holds
  int64_t stride = 0;  // between threads' samples
  bool On() const { return j > 0; }
};

Threshold ThresholdOf(const SortLines& l, const std::vector<SortStep>& steps) {
  Threshold t;
  if (l.inner != 1 || steps.front().parts < 2 || l.k < 1 || l.k > Threshold::kMaxK ||
      l.k > l.chosen) {
    return t;
  }
  const int64_t sampled = int64_t{kThreads} * Threshold::kSamples;
  const int64_t j = std::max<int64_t>(2, (4 * l.k * sampled + l.along - 1) / l.along);
  if (j > Threshold::kMaxJ) return t;
  t.j = static_cast<int>(j);
  t.cap = std::max<int64_t>(256, PowerOfTwoAtLeast(16 * l.k));
  t.stride = l.along / kThreads;
  return t;
}

// The threshold path's launches, then the parts' path.
std::vector<SortStep> WithThreshold(std::vector<SortStep> steps) {
  SortStep sample, filter, choose;
  sample.kind = SortStep::kSample;
  filter.kind = SortStep::kFilter;
  filter.parts = steps.front().parts;
  choose.kind = SortStep::kChoose;
  steps.insert(steps.begin(), {sample, filter, choose});
  return steps;
}

// Items per line that a region must hold: the most any step writes.
int64_t RegionLength(const std::vector<SortStep>& steps) {
  int64_t len = 0;
  for (const SortStep& s : steps) {
    len = std::max(len, s.kind == SortStep::kMerge ? s.in_len : s.parts * s.out_slots);
  }
  return len;
}

std::string KeyOf(DType dtype, const std::string& v, bool descending) {
  const char* d = descending ? "true" : "false";
  switch (dtype) {
    case DType::kF64:
      return absl::StrCat("tessel_sort_key_f64((double)", v, ", ", d, ")");
    case DType::kI64:
      return absl::StrCat("tessel_sort_key_i64((long long)", v, ", ", d, ")");
    case DType::kI32:
    case DType::kBool:
      return absl::StrCat("tessel_sort_key_i32((int)", v, ", ", d, ")");
    default:
      return absl::StrCat("tessel_sort_key_f32((float)", v, ", ", d, ")");
  }
}

class SortWriter {
 public:
  SortWriter(CodeWriter& w, const KernelSource& ks, const Node& sort, const SortLines& l,
             const Threshold& t)
      : w_(w), ks_(ks), sort_(sort), l_(l), t_(t), region_(RegionLength(PlanSteps(l))) {}

  // The parts' regions, then the threshold path's (DeclareThreshold).
  int64_t WorkspaceBytes() const {
    const int64_t key = l_.wide_keys ? 8 : 4;
    const int64_t threshold = t_.On() ? l_.lines * ((1 + t_.cap) * key + 2 * 4 + t_.cap * 4) : 0;
    return RegionsBytes() + threshold;
  }

  void Entry(const SortStep& s, const std::string& name) {
    // At least one block per SM, said explicitly: without it ptxas (NVRTC's, sm_80) held
    // some selections to 64 registers and spilled.
    auto body = KernelBlock(w_, absl::StrCat(kThreads, ", 1"), name, ks_);
    w_.Line("extern __shared__ __align__(16) unsigned char smem[];");
    if (s.kind == SortStep::kSample) {
      DeclareThreshold(kThresholds | kCounts);
      return Sample();
    }
    if (s.kind == SortStep::kChoose) {
      DeclareThreshold(kCandidateKeys | kCounts | kDone | kPositions);
      return Choose();
    }
    if (s.kind == SortStep::kFilter) {
      DeclareThreshold(kThresholds | kCandidateKeys | kCounts | kPositions);
    } else if (t_.On()) {
      DeclareThreshold(kDone);
    }
    DeclareRegions(s);
    if (s.kind == SortStep::kMerge) return Merge(s);
    if (s.kind != SortStep::kFilter) {
      w_.Line("const tessel_sort_space<Key> s = tessel_sort_space<Key>::at(smem, ",
              Selects() ? ChosenSlots() : l_.part, ", ", Selects() ? l_.part : 0, ");");
    }
    w_.Line("const long long line = blockIdx.x / ", s.parts, ", begin = blockIdx.x % ", s.parts,
            " * ", l_.part, "LL;");
    if (t_.On() && s.kind != SortStep::kFilter) {
      w_.Line("if (done[line]) return;  // the threshold path wrote it");
    }
    const int64_t len = ReadsInput(s) ? l_.along : s.in_len;
    w_.Line("const int n = begin < ", len, "LL ? (int)min(", l_.part, "LL, ", len,
            "LL - begin) : 0;");
    w_.Line("Key item_key[", ItemsPerThread(s), "];");
    if (ReadsInput(s)) {
      LoadInput(s);
      w_.Line("auto pos_of = [&](int, int j) { return (tessel_pos)(begin + j); };");
      if (s.kind == SortStep::kFilter) {
        w_.Line("tessel_filter_part<", Vector(s), ">(item_key, pos_of, n, thresholds[line], ",
                "counts + line, candidate_keys + line * ", t_.cap, "LL, candidate_positions + ",
                "line * ", t_.cap, "LL, ", t_.cap, "u);");
        return;
      }
    } else {
      w_.Line("const long long from = line * ", region_, "LL + begin;");
      w_.Line("tessel_pos item_pos[", ItemsPerThread(s), "];");
      w_.Line("tessel_load_run_items(", Keys(s.in_region), " + from, ", Positions(s.in_region),
              " + from, n, item_key, item_pos);");
      w_.Line("auto pos_of = [&](int i, int) { return item_pos[i]; };");
    }
    if (Selects()) {
      w_.Line("tessel_select_part<", Vector(s), ">(s, item_key, pos_of, n, ", l_.k, ");");
    } else {
      w_.Line("tessel_sort_whole_part<", Vector(s), ">(s, item_key, pos_of, n, ", l_.part, ");");
    }
    if (s.last) {
      w_.Line("tessel_store_positions(s.pos, ", l_.k, ", out0, line, ", l_.inner, ");");
      return;
    }
    w_.Line("const long long to = line * ", region_, "LL + blockIdx.x % ", s.parts, " * ",
            s.out_slots, "LL;");
    const int other = s.kind == SortStep::kFromInput ? 0 : s.in_region ^ 1;
    w_.Line("tessel_store_run(s.key, s.pos, min(n, ", l_.k, "), ", s.out_slots, ", ", Keys(other),
            " + to, ", Positions(other), " + to);");
  }

  int64_t SharedBytes(const SortStep& s) const {
    if (s.kind == SortStep::kSample) return 8 * t_.j * (l_.wide_keys ? 8 : 4);
    if (s.kind == SortStep::kFilter) return 0;
    if (s.kind == SortStep::kChoose) return t_.cap * l_.ItemBytes();
    if (s.kind == SortStep::kMerge) return kMergeTile * l_.ItemBytes();
    return (Selects() ? ChosenSlots() + l_.part : l_.part) * l_.ItemBytes() + kHistWords * 4;
  }

 private:
  // Whether parts select their first k (else they sort whole).
  bool Selects() const { return l_.k <= l_.chosen; }
  // A selection's sorted k, padded to a power of two (k <= chosen).
  int64_t ChosenSlots() const { return PowerOfTwoAtLeast(std::max<int64_t>(l_.k, 1)); }
  int64_t RegionsBytes() const { return 2 * l_.lines * region_ * l_.ItemBytes(); }
  // Steps whose parts read the input (else runs in the workspace).
  static bool ReadsInput(const SortStep& s) {
    return s.kind == SortStep::kFromInput || s.kind == SortStep::kFilter;
  }
  // Enough for the most items a part of step s holds.
  int64_t ItemsPerThread(const SortStep& s) const {
    const int64_t len = ReadsInput(s) ? l_.along : s.in_len;
    return (std::min(l_.part, len) + kThreads - 1) / kThreads;
  }

  // Region r's keys and positions (the names DeclareRegions gives them).
  static std::string Keys(int r) { return absl::StrCat("keys", r); }
  static std::string Positions(int r) { return absl::StrCat("positions", r); }

  // The workspace's regions that step s reads or writes: each region the keys of every line,
  // then their positions.
  void DeclareRegions(const SortStep& s) {
    const int64_t items = l_.lines * region_;
    if (s.kind == SortStep::kFilter) return;
    for (int r = 0; r < 2; ++r) {
      const bool reads = s.kind != SortStep::kFromInput && r == s.in_region;
      const bool writes = (!s.last || s.kind == SortStep::kMerge) &&
                          r == (s.kind == SortStep::kFromInput ? 0 : s.in_region ^ 1);
      if (!reads && !writes) continue;
      w_.Line("Key* const ", Keys(r), " = (Key*)((unsigned char*)ws + ", r * items * l_.ItemBytes(),
              "LL);");
      w_.Line("tessel_pos* const ", Positions(r), " = (tessel_pos*)(", Keys(r), " + ", items,
              "LL);");
    }
  }

  // Items per vector a thread reads of the input (tessel_item_index): 4 where lines are
  // contiguous and every part starts and ends on a multiple of 4 (one address and one load
  // for four keys), else 1.
  int Vector(const SortStep& s) const {
    const bool vectors =
        ReadsInput(s) && l_.inner == 1 && l_.along % 4 == 0 && ItemsPerThread(s) % 4 == 0;
    return vectors ? 4 : 1;
  }

  // The thread's keys of the part, as in tessel_load_run_items. Items past n read the last
  // item (vector) of the part rather than skip the load, and a mask makes them pads: with no
  // branch around them the loads issue back to back (a guarded load's key waited for its
  // value before the next load, 16 latencies in a row).
  void LoadInput(const SortStep& s) {
    const Node& in = sort_.input(0);
    const int v = Vector(s);
    const int64_t items = ItemsPerThread(s);
    const char* pad = " | (tessel_item_index<";
    if (v > 1) {
      w_.Line("auto col = [&](int k) -> index_t { return (index_t)min(k / ", v, " * ", v * kThreads,
              " + (int)threadIdx.x * ", v, ", n - ", v, ") + k % ", v, "; };");
      ExprEmitter emitter(&w_, static_cast<int>(items), ks_);
      const Value values = emitter.Get(
          &in,
          FromLinear(in.shape(),
                     absl::StrCat("(index_t)(line * ", l_.along, "LL + begin + col(k))"), true, v));
      w_.Line("#pragma unroll");
      w_.Line("for (int k = 0; k < ", items,
              "; ++k) item_key[k] = ", KeyOf(in.dtype(), values.At(), l_.descending), pad, v,
              ">(k) < n ? (Key)0 : ~(Key)0);");
      return;
    }
    w_.Line("#pragma unroll");
    auto loop = w_.Block("for (int i = 0; i < ", items, "; ++i)");
    w_.Line("const long long a = begin + min(tessel_item_index<1>(i), n - 1);");
    if (l_.inner == 1) {
      w_.Line("const index_t at = (index_t)(line * ", l_.along, "LL + a);");
    } else {
      w_.Line("const index_t at = (index_t)((line / ", l_.inner, " * ", l_.along, "LL + a) * ",
              l_.inner, " + line % ", l_.inner, ");");
    }
    ExprEmitter emitter(&w_, 1, ks_);
    const Value value = emitter.Get(&in, FromLinear(in.shape(), "at", false, 1));
    w_.Line("item_key[i] = ", KeyOf(in.dtype(), value.At(), l_.descending), pad,
            "1>(i) < n ? (Key)0 : ~(Key)0);");
  }

  // The threshold path's workspace, after the regions (WorkspaceBytes): per line its
  // threshold, candidates' keys, count, whether it is done, candidates' positions. Each
  // step names the arrays it uses.
  enum ThresholdArray {
    kThresholds = 1,
    kCandidateKeys = 2,
    kCounts = 4,
    kDone = 8,
    kPositions = 16
  };
  void DeclareThreshold(int arrays) {
    const int64_t key = l_.wide_keys ? 8 : 4, lines = l_.lines;
    const int64_t thresholds = RegionsBytes(), keys = thresholds + lines * key,
                  counts = keys + lines * t_.cap * key, done = counts + lines * 4,
                  positions = done + lines * 4;
    auto declare = [&](int array, const char* type, const char* name, int64_t offset) {
      if (arrays & array) {
        w_.Line(type, "* const ", name, " = (", type, "*)((unsigned char*)ws + ", offset, "LL);");
      }
    };
    declare(kThresholds, "Key", "thresholds", thresholds);
    declare(kCandidateKeys, "Key", "candidate_keys", keys);
    declare(kCounts, "unsigned", "counts", counts);
    declare(kDone, "unsigned", "done", done);
    declare(kPositions, "tessel_pos", "candidate_positions", positions);
  }

  // A line's threshold from kSamples contiguous keys a thread, the threads spread over it;
  // its count of candidates zeroed for the filter.
  void Sample() {
    const Node& in = sort_.input(0);
    const int v = t_.stride % 4 == 0 && l_.along % 4 == 0 ? 4 : 1;
    w_.Line("const long long line = blockIdx.x;");
    w_.Line("auto col = [&](int k) -> index_t { return (index_t)threadIdx.x * ", t_.stride,
            " + k; };");
    ExprEmitter emitter(&w_, Threshold::kSamples, ks_);
    const Value values = emitter.Get(
        &in, FromLinear(in.shape(), absl::StrCat("(index_t)(line * ", l_.along, "LL + col(k))"),
                        true, v));
    w_.Line("Key least = ~(Key)0;");
    w_.Line("#pragma unroll");
    w_.Line("for (int k = 0; k < ", Threshold::kSamples,
            "; ++k) least = tessel_key_min(least, (Key)",
            KeyOf(in.dtype(), values.At(), l_.descending), ");");
    w_.Line("const Key threshold = tessel_sample_threshold<", t_.j, ">(least, (Key*)smem);");
    w_.Line("if (threadIdx.x == 0) thresholds[line] = threshold, counts[line] = 0;");
  }

  void Choose() {
    w_.Line("const long long line = blockIdx.x;");
    w_.Line(
        "const bool chose = tessel_choose_candidates<Key>(counts[line], candidate_keys + line * ",
        t_.cap, "LL, candidate_positions + line * ", t_.cap, "LL, ", l_.k, ", ", t_.cap,
        "u, (Key*)smem, (tessel_pos*)((Key*)smem + ", t_.cap, "), out0, line, ", l_.inner, ");");
    w_.Line("if (threadIdx.x == 0) done[line] = chose;");
  }

  void Merge(const SortStep& s) {
    const int64_t tiles = 2 * s.run / kMergeTile;
    w_.Line("Key* tile_key = (Key*)smem;");
    w_.Line("tessel_pos* tile_pos = (tessel_pos*)(tile_key + ", kMergeTile, ");");
    w_.Line("const long long line = blockIdx.x / ", s.parts, ";");
    w_.Line("const int pair = blockIdx.x % ", s.parts, " / ", tiles, ", tile = blockIdx.x % ",
            tiles, ";");
    w_.Line("const long long first = line * ", region_, "LL + pair * ", 2 * s.run, "LL;");
    const int other = s.in_region ^ 1;
    w_.Line("tessel_merge_tile<Key, ", kMergeTile, ">(", Keys(s.in_region), " + first, ",
            Positions(s.in_region), " + first, ", s.run, ", tile, ", Keys(other), " + first, ",
            Positions(other), " + first, tile_key, tile_pos, ", s.last ? "out0" : "nullptr", ", ",
            l_.k, ", line, ", l_.inner, ");");
  }

  CodeWriter& w_;
  const KernelSource& ks_;
  const Node& sort_;
  const SortLines l_;
  const Threshold t_;
  const int64_t region_;  // items per line in each workspace region
};

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

}  // namespace

KernelSource GenerateSort(const FusedKernel& kernel) {
  KernelSource ks = NewKernelSource(kernel);
  const Node& sort = *kernel.outputs.at(0);
  const SortLines l = SortLinesOf(sort);
  std::vector<SortStep> steps = PlanSteps(l);
  const Threshold t = ThresholdOf(l, steps);
  if (t.On()) steps = WithThreshold(std::move(steps));
  CodeWriter w;
  SortWriter writer(w, ks, sort, l, t);
  if (steps.size() > 1) ks.workspace_bytes = writer.WorkspaceBytes();
  BeginSource(w, kernel);
  w.Line("#include \"tessel/sort.cuh\"");
  if (t.On()) w.Line("#include \"tessel/sort_threshold.cuh\"");
  w.Line("typedef ", l.Key(), " Key;");
  w.Line("// ", l.lines, " lines of ", l.along, " (stride ", l.inner, "), the first ", l.k,
         l.descending ? " descending" : " ascending", ": ", steps.size(), " launches");
  for (size_t i = 0; i < steps.size(); ++i) {
    const SortStep& s = steps[i];
    const std::string entry = i + 1 == steps.size()
                                  ? kNamePlaceholder
                                  : absl::StrCat(kNamePlaceholder, "_", i, StepName(s));
    w.Blank();
    writer.Entry(s, entry);
    Launch launch;
    launch.entry = entry;
    launch.block = kThreads;
    launch.grid[0] = l.lines * s.parts;
    launch.shared_bytes = writer.SharedBytes(s);
    ks.launches.push_back(launch);
  }
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
