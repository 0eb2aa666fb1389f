// The planner's working state, shared by its phases (see the note in planner.h).
#ifndef TESSEL_FUSION_PLANNER_STATE_H_
#define TESSEL_FUSION_PLANNER_STATE_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fusion/planner.h"

namespace tessel::fusion_internal {

// An attention chain (fusion/attention.h) as its kernel's group keeps it.
struct AttentionChain {
  std::vector<const Node*> members;  // producers first, the output matmul last
  const Node* scores = nullptr;
  const Node* logits = nullptr;
};

// An anchor group: a row group (reductions over `axes` of `space`), a GEMM group or an op
// alone (scan, sort, scatter, an attention chain).
struct Group {
  bool is_gemm = false;
  // A scan, sort, scatter or attention chain: a kernel of that kind alone (no epilogue joins).
  bool alone = false;
  KernelKind alone_kind = KernelKind::kScan;
  Shape space;                // the row space, or the GEMM output shape
  std::vector<int64_t> axes;  // row groups: reduced axes, sorted
  Shape reduced_keep;         // the reduced space with and without kept dimensions
  Shape reduced_drop;
  bool staged = false;                     // rows held on chip: elementwise row members may join
  bool fits_block = false;                 // rows one block could hold (a kernel of reductions)
  bool held = false;                       // staged in shared memory (FusionOptions::max_held_row)
  bool row_members = false;                // has elementwise members over whole rows
  std::vector<OnlineSum> online_sums;      // streaming groups: sums chained to a max, one pass
  std::vector<const Node*> members;        // producers first
  absl::flat_hash_set<int> deps;           // groups whose members this group reads
  std::vector<const Node*> matmuls;        // GEMM groups: the parts (gemm_groups.cc)
  GemmForm gemm_form = GemmForm::kSingle;  // how `matmuls` share the group
  bool merged = false;                     // moved into another group: holds nothing
  AttentionChain attention;                // alone_kind kAttention
};

// A merge the planner refused, kept for explain().
struct Refusal {
  const Node* node;
  int group;
  std::string reason;
};

struct PlannerState {
  PlannerState(const Program& p, const FusionOptions& o);

  int Index(const Node* n) const { return index.at(n); }
  bool InProgram(const Node* n) const { return index.contains(n); }
  bool IsMember(const Node* n) const { return InProgram(n) && group_of[Index(n)] >= 0; }
  // Whether group `from` reads, directly or through other groups, from group `to`.
  bool GroupReaches(int from, int to) const;

  FusionOptions options;
  // The program's nodes without data placeholders (inputs parsed from text), which are
  // leaves like realized nodes.
  std::vector<const Node*> nodes;
  absl::flat_hash_map<const Node*, int> index;  // position in `nodes` (not program.nodes)
  std::vector<std::vector<const Node*>> consumers;
  absl::flat_hash_set<const Node*> outputs;
  std::vector<int> group_of;  // -1: floating
  std::vector<Group> groups;
  // For floating nodes: the groups whose members their inline evaluation reads.
  std::vector<absl::flat_hash_set<int>> floating_deps;
  std::vector<Refusal> refusals;
  // Reductions whose groups hold their rows in shared memory (FusionOptions::max_held_row),
  // chosen from a first plan (planner.cc).
  absl::flat_hash_set<const Node*> held_rows;
  // The exp and sub of online sums (OnlineSum): computed inside their group's pass, never
  // written (their group would read them from a kernel that reads the group).
  absl::flat_hash_set<const Node*> online_terms;
  // Attention chains found before grouping, by output matmul: their other members wait for
  // it (placed with it, never alone).
  absl::flat_hash_map<const Node*, AttentionChain> attention_chains;
  absl::flat_hash_set<const Node*> attention_members;
  // Views below their q, k^T and v that the kernels can read through, and views that one of
  // them cannot (AttentionMatch::views): a view in both is written.
  absl::flat_hash_set<const Node*> attention_views, attention_view_stops;
  // The inline cost of the longest chain of elementwise ops and views each value's kernel
  // computes inline on the way to it (0 for values read from memory or bound: anchors, values
  // written for depth), and the values written because their depth reached
  // options.max_inline_depth or they are parts of a concat of many operands
  // (IsWrittenConcatPart): they join no group, and their kernel merges with no kernel that
  // reads them.
  std::vector<int> inline_depth;
  std::vector<bool> depth_cut;
  std::vector<bool> written;  // phase 3: values written to memory
  std::vector<std::string> write_reason;
};

// The groups whose members a node reads: directly (member inputs) and through floating inputs.
struct Deps {
  absl::flat_hash_set<int> direct;
  absl::flat_hash_set<int> via_floating;
  absl::flat_hash_set<int> All() const;
};
Deps DepsOf(const PlannerState& s, const Node* n);
// Why a node of dependencies `deps` may not join group `g`, or "" when it may.
std::string JoinRefusal(const PlannerState& s, int g, const Deps& deps);
// `n` into group `g`, which then reads what n reads.
void Join(PlannerState& s, const Node* n, int g, const Deps& deps);
// The index of `group`, added.
int NewGroup(PlannerState& s, Group group);

// Whether concat `n` is an operand of a concat that would evaluate more than
// options.max_concat_operands operands at each position with n's inline (ops/structure.cc
// records a concat of many tensors as concats of at most that many): n is then written.
bool IsWrittenConcatPart(const PlannerState& state, const Node* n);

// Phase 1 and 2: anchors and joins.
void AssignGroups(PlannerState& state);
// Phase 3: which values are written.
void ChooseWrites(PlannerState& state);
// Phase 3b: dual, sibling and grouped GEMMs, one group each (gemm_groups.cc); whether any
// merged.
bool GroupGemms(PlannerState& state);
// Phase 4: kernels, merged and ordered.
FusionPlan BuildKernels(PlannerState& state);

}  // namespace tessel::fusion_internal

#endif  // TESSEL_FUSION_PLANNER_STATE_H_
