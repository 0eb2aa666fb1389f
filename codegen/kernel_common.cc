#include "codegen/kernel_common.h"

#include <algorithm>

#include "absl/base/casts.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "codegen/expr_emitter.h"
#include "codegen/prelude.h"
#include "core/element.h"
#include "core/stable_hash.h"
#include "ops/cuda_expr.h"

namespace tessel::codegen {

namespace {

const char* ScalarType(const Node& n) {
  if (n.op() != OpKind::kFull) return "unsigned long long";  // a seed
  return n.dtype() == DType::kBool ? "int" : CudaComputeType(n.dtype());
}

int IndexOf(const std::vector<const Node*>& nodes, const Node* node) {
  const auto it = std::find(nodes.begin(), nodes.end(), node);
  return it == nodes.end() ? -1 : static_cast<int>(it - nodes.begin());
}

// Inputs, the workspace and the index records are not __restrict__: an entry that only reads
// such a pointer then loads through the non-coherent path (ld.global.nc: read-only for the
// kernel's whole life), which ptxas moves above the grid dependency wait (tessel_grid_begin),
// so that a kernel overlapping its predecessor read what that one had not yet written (fuzz
// seed 58018840). The inspect examples' SASS is the same without it but for those loads
// (2026-11-26). Outputs keep it (entries write them; without it an attention kernel spills).
std::string ParameterList(const KernelSource& ks) {
  std::vector<std::string> params;
  for (size_t i = 0; i < ks.inputs.size(); ++i) {
    params.push_back(absl::StrCat("const ", StorageType(ks.inputs[i]->dtype()), "* in", i));
  }
  for (size_t i = 0; i < ks.outputs.size(); ++i) {
    params.push_back(absl::StrCat(StorageType(ks.outputs[i]->dtype()), "* __restrict__ out", i));
  }
  if (ks.workspace_bytes > 0) params.push_back("float* ws");
  if (!ks.index_checks.empty()) params.push_back("unsigned long long* bad");
  for (size_t i = 0; i < ks.tensor_maps.size(); ++i) {
    params.push_back(absl::StrCat("const __grid_constant__ tessel_tensor_map tmap", i));
  }
  for (size_t i = 0; i < ks.scalars.size(); ++i) {
    params.push_back(absl::StrCat(ScalarType(*ks.scalars[i]), " s", i));
  }
  if (ks.takes_rows) params.push_back("long long rows");
  return absl::StrJoin(params, ", ");
}

}  // namespace

KernelSource NewKernelSource(const FusedKernel& kernel) {
  KernelSource ks;
  ks.kind = std::string(KernelKindName(kernel.kind));
  ks.inputs = kernel.inputs;
  ks.outputs = kernel.outputs;
  for (const Node* n : kernel.nodes) {
    if (IsScalarArgument(*n) && IndexOf(ks.inputs, n) < 0) ks.scalars.push_back(n);
    if (ReadsIndices(*n) && !IndicesInRange(*n)) ks.index_checks.push_back(n);
  }
  return ks;
}

bool ReadsIndices(const Node& node) {
  return node.op() == OpKind::kGather || node.op() == OpKind::kScatterAdd;
}

bool IndicesInRange(const Node& indexing) {
  // Both index along the axis of their first input: gather(x, axis, index) reads x,
  // scatter_add(x, axis, index, src) adds into a copy of x.
  const std::optional<ValueRange>& range = indexing.input(1).range();
  const int64_t size = indexing.input(0).shape()[indexing.attrs().ints.at(0)];
  return range.has_value() && range->Within(0, size - 1);
}

bool IsScalarArgument(const Node& node) {
  return node.op() == OpKind::kFull || node.op() == OpKind::kRand || node.op() == OpKind::kRandn;
}

uint64_t ScalarArgument(const Node& node) {
  if (node.op() != OpKind::kFull) return absl::bit_cast<uint64_t>(node.attrs().ints.at(0));
  // Rounded as the CPU backend stores it: f16/bf16 exactly, integers saturated.
  uint64_t stored = 0;
  StoreFromDouble(node.dtype(), &stored, 0, node.attrs().value);
  const double v = LoadAsDouble(node.dtype(), &stored, 0);
  switch (node.dtype()) {
    case DType::kF64:
      return absl::bit_cast<uint64_t>(v);
    case DType::kI64:
      return static_cast<uint64_t>(static_cast<int64_t>(v));
    default:
      break;
  }
  if (IsFloating(node.dtype())) return absl::bit_cast<uint32_t>(static_cast<float>(v));
  return static_cast<uint32_t>(static_cast<int32_t>(v));
}

int InputIndex(const KernelSource& ks, const Node* node) { return IndexOf(ks.inputs, node); }

int OutputSlot(const KernelSource& ks, const Node* node) { return IndexOf(ks.outputs, node); }

std::string PointerName(const KernelSource& ks, const Node* node) {
  const int i = InputIndex(ks, node);
  return i < 0 ? "" : absl::StrCat("in", i);
}

int IndexCheckSlot(const KernelSource& ks, const Node* node) {
  return IndexOf(ks.index_checks, node);
}

std::string ScalarName(const KernelSource& ks, const Node* node) {
  const int i = IndexOf(ks.scalars, node);
  return i < 0 ? "" : absl::StrCat("s", i);
}

CodeWriter::Scope KernelBlock(CodeWriter& w, absl::string_view bounds, absl::string_view name,
                              const KernelSource& ks, int cluster, GridDependency dependency) {
  const std::string dims =
      cluster > 1 ? absl::StrCat("__cluster_dims__(", cluster, ", 1, 1) ") : std::string();
  w.Line("extern \"C\" __global__ void __launch_bounds__(", bounds, ") ", dims, name, "(",
         ParameterList(ks), ") {");
  if (dependency == GridDependency::kInLibrary) return CodeWriter::Scope(&w, "}");
  return CodeWriter::Scope(&w, "}", "tessel_grid_begin();");
}

const char* IndexType(const FusedKernel& kernel, const DynamicRows* rows) {
  // A node with dynamic rows counts at the most rows it serves.
  auto elements = [&](const Node& n) {
    const int64_t numel = n.shape().numel();
    if (rows == nullptr || !rows->Has(&n) || numel == 0) return numel;
    return numel / n.shape()[0] * rows->max;
  };
  int64_t largest = 0;
  for (const Node* n : kernel.nodes) {
    largest = std::max(largest, elements(*n));
    for (const NodePtr& in : n->inputs()) largest = std::max(largest, elements(*in));
  }
  // Loops step past the end by up to a grid's stride (which reaches the element count when
  // one pass covers the space): 2^30 leaves that room in 31 bits.
  return largest < (int64_t{1} << 30) ? "int" : "long long";
}

std::string RunningValue::Combine(const std::string& a, const std::string& b) const {
  return absl::StrCat(op, "(", a, ", ", b, ")");
}

RunningValue RunningValueOf(DType dtype, bool product) {
  if (IsFloating(dtype)) {
    return RunningValue{"double", product ? "1.0" : "0.0",
                        product ? "tessel_prod_op()" : "tessel_sum_op()"};
  }
  return RunningValue{"long long", product ? "(long long)1" : "(long long)0",
                      product ? "tessel_iprod_op()" : "tessel_isum_op()"};
}

std::string StoreAccumulated(DType dtype, const std::string& acc) {
  if (dtype == DType::kF64 || dtype == DType::kI64) return StoreConvert(dtype, acc);
  // i32 (scatter_add's; integer scans give i64) keeps the low 32 bits of its wrapping i64
  // sum, as the CPU's cast does (through float it lost the bits below 2^24: seed 10602690).
  if (dtype == DType::kI32) return absl::StrCat("(int)", acc);
  return StoreConvert(dtype, absl::StrCat("(float)", acc));
}

void BeginSource(CodeWriter& w, const FusedKernel& kernel, const DynamicRows* rows) {
  w.Raw(Prelude());
  w.Blank();
  w.Line("typedef ", IndexType(kernel, rows), " index_t;");
  w.Blank();
}

void FinishSource(const FusedKernel& kernel, const std::string& text, KernelSource* ks) {
  // Name: kind letter, the first distinct ops, and a hash of the whole text.
  std::vector<std::string> ops;
  for (const Node* n : kernel.nodes) {
    const std::string op(OpName(n->op()));
    if (n->op() != OpKind::kFull && (ops.empty() || ops.back() != op) && ops.size() < 4) {
      ops.push_back(op);
    }
  }
  const char letter = kernel.kind == KernelKind::kPointwise       ? 'E'
                      : kernel.kind == KernelKind::kGemm          ? 'G'
                      : kernel.kind == KernelKind::kNormalization ? 'N'
                      : kernel.kind == KernelKind::kScan          ? 'S'
                      : kernel.kind == KernelKind::kSort          ? 'O'
                      : kernel.kind == KernelKind::kScatter       ? 'A'
                      : kernel.kind == KernelKind::kAttention     ? 'F'
                                                                  : 'R';
  ks->name = absl::StrFormat("%c_%s_%08x", letter, absl::StrJoin(ops, "_"),
                             static_cast<uint32_t>(StableHash(text)));
  ks->source = absl::StrReplaceAll(text, {{kNamePlaceholder, ks->name}});
  for (Launch& l : ks->launches) {
    l.entry = absl::StrReplaceAll(l.entry, {{kNamePlaceholder, ks->name}});
  }
}

}  // namespace tessel::codegen
