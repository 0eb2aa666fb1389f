// Sort kernels: the first k positions of each line along an axis in sorted order (argsort,
// sort, topk). codegen/sort_plan.h plans the launches; this file writes their entry points.
#include <algorithm>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_common.h"
#include "codegen/sort_plan.h"

namespace tessel::codegen {
namespace {

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
  int64_t WorkspaceBytes() const { return t_.On() ? ThresholdLayout().end : RegionsBytes(); }

  void Entry(const SortStep& s, const std::string& name) {
    // At least one block per SM, said explicitly: without it ptxas (NVRTC's, sm_80) held
    // some selections to 64 registers and spilled. A filter of 4-byte keys read straight
    // from memory fits 32 registers: 8 blocks per SM keep more loads in flight (H100: 62.7
    // -> 59.6 us of a top-k); fused expressions or wide keys would spill.
    const bool plain = !l_.wide_keys && absl::c_linear_search(ks_.inputs, &sort_.input(0));
    const int per_sm = s.kind == SortStep::kFilter && plain ? 8 : 1;
    auto body = KernelBlock(w_, absl::StrCat(kSortThreads, ", ", per_sm), name, ks_);
    w_.Line("extern __shared__ __align__(16) unsigned char smem[];");
    if (s.kind == SortStep::kSample) {
      DeclareThreshold(kThresholds | kCounts | kLinesLeft);
      return Sample();
    }
    if (s.kind == SortStep::kChoose) {
      DeclareThreshold(kCandidateKeys | kCounts | kLinesLeft | kPositions);
      return Choose();
    }
    if (s.kind == SortStep::kFilter) {
      DeclareThreshold(kThresholds | kCandidateKeys | kCounts | kPositions);
    } else if (t_.On()) {
      DeclareThreshold(kLinesLeft);
    }
    DeclareRegions(s);
    if (!t_.On() || s.kind == SortStep::kFilter) {
      return s.kind == SortStep::kMerge ? Merge(s, false) : Part(s, false);
    }
    // After the threshold path only its lines left need the parts' path: each block walks
    // their parts (a grid of every line's parts, most of them exiting at once, cost more
    // than the rest of the top-k).
    w_.Line("const long long items = (long long)lines_left[0] * ", s.parts, ";");
    auto walk = w_.Block("for (long long item = blockIdx.x; item < items; item += gridDim.x)");
    if (s.kind == SortStep::kMerge) {
      Merge(s, true);
    } else {
      Part(s, true);
    }
    w_.Line("__syncthreads();  // the next item reuses shared memory");
  }

  // Step s for one part: of blockIdx.x's line, or (`left`) of the lines the threshold path
  // left, `item` counting their parts.
  void Part(const SortStep& s, bool left) {
    const char* block = BlockOf(left);
    if (s.kind != SortStep::kFilter) {
      w_.Line("const tessel_sort_space<Key> s = tessel_sort_space<Key>::at(smem, ",
              Selects() ? ChosenSlots() : l_.part, ", ", Selects() ? l_.part : 0, ");");
    }
    w_.Line("const long long line = ", LineOf(s, left), ", begin = ", block, " % ", s.parts, " * ",
            PartOf(s), "LL;");
    const int64_t len = ReadsInput(s) ? l_.along : s.in_len;
    w_.Line("const int n = begin < ", len, "LL ? (int)min(", PartOf(s), "LL, ", len,
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
      w_.Line("tessel_select_part<", Vector(s), ", ", SortE(ChosenSlots()),
              ">(s, item_key, pos_of, n, ", l_.k, ");");
    } else {
      w_.Line("tessel_sort_whole_part<", Vector(s), ", ", SortE(l_.part),
              ">(s, item_key, pos_of, n, ", l_.part, ");");
    }
    if (s.last) {
      w_.Line("tessel_store_positions(s.pos, ", l_.k, ", out0, line, ", l_.inner, ");");
      return;
    }
    w_.Line("const long long to = line * ", region_, "LL + ", block, " % ", s.parts, " * ",
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
  // Items a thread holds to sort m (tessel_bitonic_sort's kMaxE).
  static int64_t SortE(int64_t m) { return std::max<int64_t>(1, m / kSortThreads); }
  int64_t PartOf(const SortStep& s) const { return s.part > 0 ? s.part : l_.part; }
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
    return (std::min(PartOf(s), len) + kSortThreads - 1) / kSortThreads;
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
  // item (vector) of the line rather than skip the load, and a mask makes them pads: with no
  // branch around them the loads issue back to back (a guarded load's key waited for its
  // value before the next load, 16 latencies in a row). A part past the line's end (the
  // merge's padding runs, n = 0) reads that item too (it read before the line's start:
  // fuzz seed 23126902).
  void LoadInput(const SortStep& s) {
    const Node& in = sort_.input(0);
    const int v = Vector(s);
    const int64_t items = ItemsPerThread(s);
    const char* pad = " | (tessel_item_index<";
    if (v > 1) {
      w_.Line("auto col = [&](int k) -> index_t { return (index_t)min(begin + k / ", v, " * ",
              v * kSortThreads, " + (int)threadIdx.x * ", v, ", ", l_.along - v, "LL) + k % ", v,
              "; };");
      ExprEmitter emitter(&w_, static_cast<int>(items), ks_);
      const Value values = emitter.Get(
          &in, FromLinear(in.shape(), absl::StrCat("(index_t)(line * ", l_.along, "LL + col(k))"),
                          true, v));
      w_.Line("#pragma unroll");
      w_.Line("for (int k = 0; k < ", items,
              "; ++k) item_key[k] = ", KeyOf(in.dtype(), values.At(), l_.descending), pad, v,
              ">(k) < n ? (Key)0 : ~(Key)0);");
      return;
    }
    w_.Line("#pragma unroll");
    auto loop = w_.Block("for (int i = 0; i < ", items, "; ++i)");
    w_.Line("const long long a = min(begin + tessel_item_index<1>(i), ", l_.along - 1, "LL);");
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
  // threshold, candidates' keys, their count and positions; then the count of lines left to
  // the parts' path and their indices (32 bits: a line holds more than one part). Each step
  // names the arrays it uses.
  enum ThresholdArray {
    kThresholds = 1,
    kCandidateKeys = 2,
    kCounts = 4,
    kPositions = 8,
    kLinesLeft = 16
  };
  struct ThresholdOffsets {
    int64_t thresholds, keys, counts, positions, lines_left, end;
  };
  ThresholdOffsets ThresholdLayout() const {
    const int64_t key = l_.wide_keys ? 8 : 4, lines = l_.lines;
    ThresholdOffsets o;
    o.thresholds = RegionsBytes();
    o.keys = o.thresholds + lines * key;
    o.counts = o.keys + lines * t_.cap * key;
    o.positions = o.counts + lines * 4;
    o.lines_left = o.positions + lines * t_.cap * 4;
    o.end = o.lines_left + (1 + lines) * 4;
    return o;
  }
  void DeclareThreshold(int arrays) {
    const ThresholdOffsets o = ThresholdLayout();
    auto declare = [&](int array, const char* type, const char* name, int64_t offset) {
      if (arrays & array) {
        w_.Line(type, "* const ", name, " = (", type, "*)((unsigned char*)ws + ", offset, "LL);");
      }
    };
    declare(kThresholds, "Key", "thresholds", o.thresholds);
    declare(kCandidateKeys, "Key", "candidate_keys", o.keys);
    declare(kCounts, "unsigned", "counts", o.counts);
    declare(kPositions, "tessel_pos", "candidate_positions", o.positions);
    declare(kLinesLeft, "unsigned", "lines_left", o.lines_left);
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
    auto first = w_.Block("if (threadIdx.x == 0)");
    w_.Line("thresholds[line] = threshold, counts[line] = 0;");
    w_.Line("if (line == 0) lines_left[0] = 0;  // the choice counts them again");
  }

  void Choose() {
    w_.Line("const long long line = blockIdx.x;");
    w_.Line(
        "const bool chose = tessel_choose_candidates<Key>(counts[line], candidate_keys + line * ",
        t_.cap, "LL, candidate_positions + line * ", t_.cap, "LL, ", l_.k, ", ", t_.cap,
        "u, (Key*)smem, (tessel_pos*)((Key*)smem + ", t_.cap, "), out0, line, ", l_.inner, ");");
    w_.Line("if (threadIdx.x == 0 && !chose) lines_left[1 + atomicAdd(lines_left, 1u)] = line;");
  }

  // The part a block works on: its own, or (`left`) the lines-left part `item` it walks to.
  static const char* BlockOf(bool left) { return left ? "item" : "blockIdx.x"; }
  // Line `line`'s index (blockIdx.x's, or the left line's of `item`, as Part).
  std::string LineOf(const SortStep& s, bool left) const {
    return left ? absl::StrCat("lines_left[1 + ", BlockOf(left), " / ", s.parts, "]")
                : absl::StrCat(BlockOf(left), " / ", s.parts);
  }

  void Merge(const SortStep& s, bool left) {
    const char* block = BlockOf(left);
    const int64_t tiles = 2 * s.run / kMergeTile;
    w_.Line("Key* tile_key = (Key*)smem;");
    w_.Line("tessel_pos* tile_pos = (tessel_pos*)(tile_key + ", kMergeTile, ");");
    w_.Line("const long long line = ", LineOf(s, left), ";");
    w_.Line("const int pair = ", block, " % ", s.parts, " / ", tiles, ", tile = ", block, " % ",
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

}  // namespace

KernelSource GenerateSort(const FusedKernel& kernel) {
  KernelSource ks = NewKernelSource(kernel);
  const Node& sort = *kernel.outputs.at(0);
  const SortLines l = SortLinesOf(sort);
  std::vector<SortStep> steps = PlanSteps(l);
  const Threshold t = ThresholdOf(l, steps);
  if (t.On()) steps = WithThreshold(l, std::move(steps));
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
    launch.block = kSortThreads;
    launch.grid[0] = l.lines * s.parts;
    // After the threshold path, blocks walk the parts of the lines it left (Entry). Four per
    // SM: the parts' register and shared memory needs allow about that many.
    if (t.On() && !OfThreshold(s)) launch.persistent_per_sm = 4;
    launch.shared_bytes = writer.SharedBytes(s);
    ks.launches.push_back(launch);
  }
  FinishSource(kernel, w.text(), &ks);
  return ks;
}

}  // namespace tessel::codegen
