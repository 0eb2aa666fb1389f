// KernelSource: what the code generator hands the CUDA backend for one FusedKernel: a
// complete CUDA translation unit and how to launch its entry points. FusedKernel ->
// KernelSource -> (backend) compiled through the runtime -> launched.
#ifndef TESSEL_CODEGEN_KERNEL_SOURCE_H_
#define TESSEL_CODEGEN_KERNEL_SOURCE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/node.h"

namespace tessel::codegen {

// A leading extent that kernels take as their last argument, `long long rows`, instead of
// in their source: dim 0 of every node in `nodes` (the backend decides which: see
// backend/dynamic_extents.h). A kernel generated with it serves any value from 2 to `max`.
struct DynamicRows {
  absl::flat_hash_set<const Node*> nodes;
  int64_t max = 0;
  // The fewest rows of the values it serves (0: not said, take `max`). GEMM tiles are chosen
  // for them: a bucket's smallest batch, often a power of two, is where tiles laid out for
  // its largest waste the most (docs in codegen/gemm_sm90_tiles.cc, ChooseWalk).
  int64_t min = 0;
  // Values whose other extents vary with the batch too (a transposed view of a batch puts it
  // at dim 1): a kernel that holds one is made for this program's extents alone.
  absl::flat_hash_set<const Node*> fixed;
  // Values whose index math holds the batch (a flip or a gather along it): the kernel that
  // computes one is made for this program's extents alone; kernels that read one as written
  // take it as any value.
  absl::flat_hash_set<const Node*> fixed_math;
  bool Has(const Node* n) const { return nodes.contains(n); }
};

// grid[0] of a launch as a function of the rows argument: CeilDiv(rows * mul, div) * times.
// mul 0: grid[0] does not depend on it.
struct RowsGrid {
  int64_t mul = 0, div = 1, times = 1;
};

struct Launch {
  std::string entry;
  std::array<int64_t, 3> grid = {1, 1, 1};
  int block = 256;
  int64_t shared_bytes = 0;  // dynamic shared memory
  // Blocks a cluster (its __cluster_dims__): past 8, not portable, the runtime allows it.
  int cluster = 1;
  // Above 0: grid[0] is a count of work items that the kernel walks itself, and the runtime
  // launches at most this many blocks per SM.
  int persistent_per_sm = 0;
  RowsGrid rows_grid;
};

// A TMA descriptor (128-byte swizzle, zero fill out of bounds). The backend encodes it at
// each launch for the buffer of parameter `arg` (inputs, then outputs) and passes it after
// the pointers as `const __grid_constant__ tessel_tensor_map tmap<i>`.
struct TensorMapSpec {
  int arg = 0;
  int64_t offset = 0;  // bytes into that buffer (a staged operand's copy in the workspace)
  DType dtype = DType::kBF16;
  int rank = 3;                                   // dims in use, 3 to 5
  std::array<int64_t, 5> dims = {1, 1, 1, 1, 1};  // elements, innermost first
  std::array<int64_t, 4> strides = {};            // bytes between steps of dims 1 ..
  std::array<int, 2> box = {64, 64};  // the box in dims 0 and 1 (one step of the others)
  bool rows_dim1 = false;  // dims[1] is the rows argument (and strides[1] = rows * strides[0])
};

struct KernelSource {
  std::string name;  // content-derived, stable
  std::string kind;  // KernelKindName: "pointwise", "reduction", "gemm", "attention", ...
  // How its threads cover the work, where a kind has several ways ("a block per row", ...):
  // explain() shows it.
  std::string schedule;
  std::string source;
  // Every entry point takes (inputs..., outputs..., workspace if any) as device pointers,
  // then the TMA descriptors, then the scalars by value.
  std::vector<const Node*> inputs;
  std::vector<const Node*> outputs;
  int64_t workspace_bytes = 0;
  std::vector<TensorMapSpec> tensor_maps;
  // Values that are arguments, not source (`full` values, generator seeds), so that a new
  // learning rate or seed reuses the compiled kernel: parameter `s<i>` is ScalarArgument of
  // scalars[i].
  std::vector<const Node*> scalars;
  // Gathers and scatters whose indices the kernel checks (not IndicesInRange): op i records its
  // first out-of-range index in the three words at `bad + 3 * i` (a parameter after the workspace;
  // the backend zeroes them and reads them back: tessel_report_index in the prelude).
  std::vector<const Node*> index_checks;
  // Takes `long long rows` after the scalars (DynamicRows).
  bool takes_rows = false;
  std::vector<Launch> launches;  // in order
};

// Whether kernels take `node`'s value as a scalar parameter instead of computing it: `full`
// (its value) and the generators (their seeds). Such values stay out of plan keys.
bool IsScalarArgument(const Node& node);

// Whether `node` reads positions from an index tensor (a gather or a scatter_add).
bool ReadsIndices(const Node& node);

// Whether every index that a gather or scatter_add reads is known to be in range (its value
// range, [ Note -- value ranges ] in core/value_range.h): token ids copied from the host,
// positions an argsort wrote along an axis no longer than the one indexed (topk's values),
// values brought in range by remainder. Such an op gets no check, so realize has no flag to
// read back and need not wait for the kernels. Plan keys hold the answer.
bool IndicesInRange(const Node& indexing);

// The 8 bytes that hold scalar parameter `node` (kFull, kRand, kRandn) as the kernel reads
// it: a float (rounded to the node's dtype first) or an int in the low 4 bytes, a double or a
// long long in all 8 (f64, i64), or a seed.
uint64_t ScalarArgument(const Node& node);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_KERNEL_SOURCE_H_
