#include "codegen/kernel_common.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "codegen/expr_emitter.h"
#include "codegen/kernel_cache.h"
#include "codegen/prelude.h"

namespace tessel::codegen {

KernelSource NewKernelSource(const FusedKernel& kernel) {
  KernelSource ks;
  ks.kind = std::string(KernelKindName(kernel.kind));
  ks.inputs = kernel.inputs;
  ks.outputs = kernel.outputs;
  return ks;
}

int InputIndex(const KernelSource& ks, const Node* node) {
  for (size_t i = 0; i < ks.inputs.size(); ++i) {
    if (ks.inputs[i] == node) return static_cast<int>(i);
  }
  return -1;
}

std::string PointerName(const KernelSource& ks, const Node* node) {
  const int i = InputIndex(ks, node);
  return i < 0 ? "" : absl::StrCat("in", i);
}

std::function<std::string(const Node*)> PointerNames(const KernelSource& ks) {
  return [&ks](const Node* node) { return PointerName(ks, node); };
}

std::string ParameterList(const KernelSource& ks) {
  std::vector<std::string> params;
  for (size_t i = 0; i < ks.inputs.size(); ++i) {
    params.push_back(
        absl::StrCat("const ", StorageType(ks.inputs[i]->dtype()), "* __restrict__ in", i));
  }
  for (size_t i = 0; i < ks.outputs.size(); ++i) {
    params.push_back(absl::StrCat(StorageType(ks.outputs[i]->dtype()), "* __restrict__ out", i));
  }
  if (ks.workspace_bytes > 0) params.push_back("float* __restrict__ ws");
  for (size_t i = 0; i < ks.tensor_maps.size(); ++i) {
    params.push_back(absl::StrCat("const __grid_constant__ tessel_tensor_map tmap", i));
  }
  return absl::StrJoin(params, ", ");
}

const char* IndexType(const FusedKernel& kernel) {
  int64_t largest = 0;
  for (const Node* n : kernel.nodes) {
    largest = std::max(largest, n->shape().numel());
    for (const NodePtr& in : n->inputs()) largest = std::max(largest, in->shape().numel());
  }
  return largest < (int64_t{1} << 31) - 4096 ? "int" : "long long";
}

void BeginSource(CodeWriter& w, const FusedKernel& kernel) {
  w.Raw(Prelude());
  w.Blank();
  w.Line("typedef ", IndexType(kernel), " index_t;");
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
                                                                  : 'R';
  ks->name = absl::StrFormat("%c_%s_%08x", letter, absl::StrJoin(ops, "_"),
                             static_cast<uint32_t>(cuda::StableHash(text)));
  ks->source = absl::StrReplaceAll(text, {{kNamePlaceholder, ks->name}});
  for (Launch& l : ks->launches) {
    l.entry = absl::StrReplaceAll(l.entry, {{kNamePlaceholder, ks->name}});
  }
}

}  // namespace tessel::codegen
