#include "fusion/plan.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "core/topo_order.h"

namespace tessel {

bool ReadsColumns(const Shape& space, const std::vector<int64_t>& axes) {
  const int last = space.rank() - 1;
  return last >= 0 && space[last] >= 32 &&
         std::find(axes.begin(), axes.end(), int64_t{last}) == axes.end();
}

absl::string_view KernelKindName(KernelKind kind) {
  switch (kind) {
    case KernelKind::kPointwise:
      return "pointwise";
    case KernelKind::kReduction:
      return "reduction";
    case KernelKind::kNormalization:
      return "normalization";
    case KernelKind::kGemm:
      return "gemm";
    case KernelKind::kScan:
      return "scan";
    case KernelKind::kSort:
      return "sort";
    case KernelKind::kScatter:
      return "scatter";
    case KernelKind::kAttention:
      return "attention";
  }
  return "?";
}

std::string PrintPlan(const FusionPlan& plan, const std::vector<const Node*>& graph_outputs) {
  absl::flat_hash_map<const Node*, int> number;
  for (const Node* n : TopologicalOrder(graph_outputs, /*include_realized=*/true)) {
    const int next = static_cast<int>(number.size());
    number[n] = next;
  }
  auto names = [&](const std::vector<const Node*>& nodes) {
    std::vector<std::string> out;
    for (const Node* n : nodes) {
      auto it = number.find(n);
      out.push_back(it == number.end() ? "%?" : absl::StrCat("%", it->second));
    }
    return absl::StrJoin(out, " ");
  };
  std::string text;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const FusedKernel& kernel = plan.kernels[k];
    std::vector<std::string> ops;
    for (const Node* n : kernel.nodes) ops.push_back(std::string(OpName(n->op())));
    absl::StrAppend(&text, "kernel ", k, " ", KernelKindName(kernel.kind), ": ",
                    absl::StrJoin(ops, " "), "\n");
    if (!kernel.inputs.empty()) absl::StrAppend(&text, "  reads ", names(kernel.inputs), "\n");
    absl::StrAppend(&text, "  writes ", names(kernel.outputs), "\n");
    absl::StrAppend(&text, "  computes ", names(kernel.nodes), "\n");
    for (size_t i = 0; i < kernel.notes.size(); ++i) {
      const std::string node = names({kernel.notes_nodes[i]});
      absl::StrAppend(&text, "  note: ", absl::StrReplaceAll(kernel.notes[i], {{"{n}", node}}),
                      "\n");
    }
  }
  return text;
}

}  // namespace tessel
