// The fusion planner: Program -> FusionPlan. Pure: a graph in, a plan out.
//
// [ Note -- how the planner cuts a graph ]
// 1. Anchors. Walking producers first, each reduction starts or joins a row group (same
//    space and axes: chained reductions such as layer norm's mean and variance, or
//    horizontal siblings such as sum(x) and max(x)); each matmul starts a GEMM group.
// 2. Joins. An elementwise node that reads a group member directly joins that group when it
//    lives in the group's space (the row, the reduced row, or the GEMM output) and the join
//    creates no cycle between kernels. Everything else floats: it is recomputed inline
//    wherever it is needed, views and broadcasts becoming index math.
// 3. Writes. A value is written to memory when it is a program output, a matmul operand, a
//    group member read outside its group, or a floating value needed by several kernels
//    whose recomputation costs more than writing it once.
// 4. Pointwise kernels. Written floating values become pointwise kernels; those over the same
//    space merge, then independent ones merge into multi-segment launches.
// Each refused merge leaves a note that explain() prints.
#ifndef TESSEL_FUSION_PLANNER_H_
#define TESSEL_FUSION_PLANNER_H_

#include <cstdint>

#include "core/backend.h"
#include "core/target.h"
#include "fusion/plan.h"

namespace tessel {

struct FusionOptions {
  // False: one kernel per operation (the unfused baseline the benchmarks compare against).
  bool fuse = true;
  // The longest row a normalization kernel holds on chip; longer rows stream.
  int64_t max_staged_row = 16384;
  // The same for a reduction over leading or middle axes that keeps the innermost one
  // (ReadsColumns): 32 such rows are held at once, a warp wide (codegen's column staging
  // holds up to 32 threads x 16 values a column); where clusters exist, longer ones too, a
  // few columns a block (ColumnWidth) and each column split over a cluster's blocks. Longer
  // ones still are reduced by their own column kernels and the normalization's epilogue
  // reads the results: more passes over the input, but each coalesced, where one kernel
  // would read a column one element per stride.
  int64_t max_staged_column = 512;
  // Blocks that may share one staged row (a thread-block cluster, combining their partial
  // reductions through distributed shared memory: sm_90 and later): rows up to
  // max_staged_row x cluster_blocks are held on chip, each block holding its part.
  int cluster_blocks = 1;
  // The most blocks of a cluster that share long columns: past the portable 8 where the
  // device allows it (codegen/column_shape.cc: 128 bytes of each row a block need
  // 16 for columns of 16384).
  int column_cluster_blocks = 1;
  // Short 16-bit columns held as a tile in shared memory, three blocks an SM
  // (codegen/column_shape.cc), from this many columns of at least column_tile_length values
  // (0: never). Where an SM's shared memory holds three 64 KB tiles, as on the H100 and H200
  // (measured there): from two blocks of 64 columns on each of 132 SMs, columns of 241.
  // TESSEL_SMALL_TILES=1: from 1 and 1, so that the fuzzer's small programs take tiles too
  // (tools/fuzz --small_tiles).
  int64_t column_tile_columns = 0;
  int64_t column_tile_length = 0;
  // Rows longer than a block's are held by a cluster only when there are fewer rows than
  // this: then a block per row leaves SMs idle, and a cluster per row pays (H100, 64 rows of
  // 131072 bf16 softmax: 50% of copy against 43% streamed). With more rows the streamed
  // online kernel keeps every SM busy and its loads in flight, where the cluster's barriers
  // idle them (4096 rows of 32000 bf16 cross-entropy: 83% streamed against 22%). Columns
  // have no streamed kernel: held by clusters at any count.
  int64_t cluster_rows_below = 256;
  // A normalization over many rows (at least cluster_rows_below) of up to max_held_row values,
  // which would otherwise stream its reductions and then read the rows again in a kernel of its
  // own, holds each row in one block's shared memory instead, where the row's inputs take at most
  // held_row_bytes (0: never): copied in once, every reduction and the stores read them there
  // (codegen/row_held.cc). H200, bf16 softmax over 1024 rows of 32768: 45% of copy as two kernels
  // (bench/RESULTS.md, fifty-fifth session).
  int64_t max_held_row = 0;
  int64_t held_row_bytes = 0;
  // A floating value needed by several kernels is recomputed in each when its inline cone
  // costs at most this much (core/op_table.def's inline costs: transcendental ops and random
  // numbers 4, others 1), else written once.
  int recompute_limit = 8;
  // The longest chain of operations one kernel computes inline (elementwise ops and views
  // between what it reads and what it writes or reduces), each weighed by its inline cost
  // (core/op_table.def): a value deeper than this is written, so that the code generator's
  // recursion, the source and NVRTC's time stay bounded on chains of thousands of fused ops
  // (4,000 `sin(x) + 1` once overflowed the stack; 200 took NVRTC 42 s as one kernel on this
  // project's 2-core CI machine, 10 s as the three kernels of this limit). No benchmarked
  // graph comes near it.
  int max_inline_depth = 400;
  // The most iteration spaces one pointwise launch serves.
  int max_segments = 128;
  // Independent pointwise work shares a launch up to this many outputs and this inline cost
  // (core/op_table.def) in all: NVRTC's time grows faster than a kernel (on this project's
  // 2-core CI machine, 500 outputs of x * i took 18 s against 0.7 s for 100, 40 distinct
  // sin(x + i) 13 s), and past some thousand outputs the parameters overflow. 64 updates
  // p - lr * g (cost 3 each) stay one launch.
  int max_pointwise_outputs = 128;
  int max_pointwise_cost = 256;
  // Sibling reductions over one space share a kernel up to this many, for the same reason:
  // 3000 sums of x * i made two kernels of 620 KB that NVRTC had not compiled in 15 minutes
  // (100 made 43 KB; found by a crash-hunting helper).
  int max_group_reductions = 64;
  // A kernel evaluates every operand of a concat at each position (and picks one): a concat
  // that another concat reads is written where the two have more operands than this (a
  // concat of many tensors is recorded as concats of at most this many: 300 operands in one
  // kernel took NVRTC 47 s on this project's 2-core CI machine).
  int max_concat_operands = 16;
  // Attention chains (fusion/attention.h) run as one kernel (the target has mma.sync).
  bool attention = false;
  // Persistent attention kernels whose work tiles differ in cost (masks leave query tiles
  // different numbers of keys) hand them out by ticket, the next to the first block done
  // (one zeroing launch more); otherwise each block walks a fixed share.
  bool work_tickets = true;
  // Attention split over the keys: the shares merged by the last of each in the kernel, or by
  // a second launch, as the schedule chooses (codegen/attention_schedule.cc) or forced.
  SplitMerge split_merge = SplitMerge::kChosen;
  // GEMMs that read the same A (q, k and v projections; SwiGLU's gate and up as a dual GEMM)
  // and independent GEMMs (a mixture of experts) run as one kernel where that pays
  // (fusion/gemm_groups.cc): the Hopper wgmma kernel's tile walk serves several problems.
  bool gemm_groups = false;
  // The most matmuls one such kernel serves (a TMA map or more each, in the parameters' 4 KB).
  int max_gemm_parts = 8;
};

FusionPlan PlanFusion(const Program& program, const FusionOptions& options = {});

// TESSEL_FUSION=0 selects the unfused mode for a whole process. With a target: the staged
// row limits it supports (clusters of 8 blocks from sm_90; TESSEL_CLUSTERS=0: none), and
// GEMM groups on sm_90a (TESSEL_GEMM_GROUPS=0: none, e.g. to compare); TESSEL_TICKETS=0
// turns work tickets off (to compare); TESSEL_SPLIT_MERGE=last or =launch forces the merge of
// an attention split's shares in the kernel or by a second launch (to compare, and to test).
FusionOptions DefaultFusionOptions();
FusionOptions DefaultFusionOptions(const Target& target);

}  // namespace tessel

#endif  // TESSEL_FUSION_PLANNER_H_
