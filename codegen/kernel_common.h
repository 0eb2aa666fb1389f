// Pieces every kernel generator shares: the parameter list, pointer names, index type,
// and the final naming step.
#ifndef TESSEL_CODEGEN_KERNEL_COMMON_H_
#define TESSEL_CODEGEN_KERNEL_COMMON_H_

#include <functional>
#include <string>

#include "codegen/code_writer.h"
#include "codegen/kernel_source.h"
#include "core/dtype.h"
#include "fusion/plan.h"

namespace tessel::codegen {

// A source for `kernel`: its kind, inputs and outputs (the parameter order).
KernelSource NewKernelSource(const FusedKernel& kernel);

// Placeholder for the kernel name until the source is complete (the name hashes it).
inline constexpr char kNamePlaceholder[] = "TESSEL_KERNEL";

// "in<i>" for input i, "" for a value the kernel does not read from memory.
std::string PointerName(const KernelSource& ks, const Node* node);
// "s<i>" for scalar parameter i, "" for a node that is not one.
std::string ScalarName(const KernelSource& ks, const Node* node);
// The position of gather or scatter `node` among the kernel's index checks
// (KernelSource::index_checks), or -1 where it has none.
int IndexCheckSlot(const KernelSource& ks, const Node* node);
// The position of `node` among the kernel's inputs, or -1.
int InputIndex(const KernelSource& ks, const Node* node);
// The position of `node` among the kernel's outputs (its `out<i>` parameter), or -1.
int OutputSlot(const KernelSource& ks, const Node* node);

// Where a kernel waits for the one before it on the stream, which it may overlap
// (programmatic dependent launch on sm_90 and later: the backend launches every kernel so).
// Nothing may touch global memory before the wait.
enum class GridDependency {
  kAtEntry,    // its first statement (tessel_grid_begin)
  kInLibrary,  // its device library's prologue, after work that touches no global memory
};

// Opens kernel `name`: `extern "C" __global__ void __launch_bounds__(<bounds>) name(<params>) {`
// with the parameters in the order the backend passes them: "const float* in0, ..., bf16_t*
// __restrict__ out0, float* ws, unsigned long long* bad, const __grid_constant__
// tessel_tensor_map tmap0, ..., float s0, unsigned long long s1, long long rows". `cluster` > 1:
// launched in thread-block clusters of that many blocks along x (`__cluster_dims__`, sm_90).
[[nodiscard]] CodeWriter::Scope KernelBlock(CodeWriter& w, absl::string_view bounds,
                                            absl::string_view name, const KernelSource& ks,
                                            int cluster = 1,
                                            GridDependency dependency = GridDependency::kAtEntry);

// "int" when every index fits in 31 bits (with dynamic rows: at their most), else "long long".
const char* IndexType(const FusedKernel& kernel, const DynamicRows* rows = nullptr);

// Starts a source: prelude and the index type alias.
void BeginSource(CodeWriter& w, const FusedKernel& kernel, const DynamicRows* rows = nullptr);

// How a running value accumulates as the CPU backend's do (double for floats, wrapping
// 64-bit integers otherwise): its type, identity and combination.
struct RunningValue {
  const char* type;      // double or long long
  std::string identity;  // 0 or 1 of that type
  std::string op;        // the tessel_*_op functor
  std::string Combine(const std::string& a, const std::string& b) const;
};
RunningValue RunningValueOf(DType dtype, bool product);
// The accumulated value `acc` stored as `dtype`.
std::string StoreAccumulated(DType dtype, const std::string& acc);

// Names the kernel from its kind and ops plus a hash of the text, fills ks.source and the
// launches' entry names (which were written relative to the placeholder).
void FinishSource(const FusedKernel& kernel, const std::string& text, KernelSource* ks);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_KERNEL_COMMON_H_
