#include "backend/dump.h"

#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <fstream>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/topo_order.h"
#include "runtime/files.h"

namespace tessel::backend {

absl::StatusOr<std::string> DumpDirectory() {
  const char* env = std::getenv("TESSEL_DUMP");
  const std::string dir = env != nullptr ? env : "";
  if (dir.empty()) return dir;
  runtime::MakeDirectories(dir);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {  // a file there, say: no dumps
    return absl::InvalidArgumentError(absl::StrCat("tessel::environment: TESSEL_DUMP='", dir,
                                                   "' is no directory and cannot be made one"));
  }
  return dir;
}

std::string WriteDumpFile(const std::string& dir, const std::string& file,
                          const std::string& text) {
  runtime::MakeDirectories(dir);
  const std::string path = absl::StrCat(dir, "/", file);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  return out.write(text.data(), text.size()) ? path : "";
}

std::string GraphDot(const FusionPlan& plan, const std::vector<const Node*>& outputs) {
  static constexpr const char* kColours[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072",
                                             "#80b1d3", "#fdb462", "#b3de69", "#fccde5"};
  absl::flat_hash_map<const Node*, int> kernel_of;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    for (const Node* n : plan.kernels[k].nodes) kernel_of[n] = static_cast<int>(k);
  }
  absl::flat_hash_map<const Node*, int> number;
  std::string dot = "digraph tessel {\n  node [shape=box, style=filled, fontname=monospace];\n";
  for (const Node* n : TopologicalOrder(outputs, /*include_realized=*/true)) {
    const int id = static_cast<int>(number.size());
    number[n] = id;
    auto k = kernel_of.find(n);
    const std::string colour = k == kernel_of.end() ? "#dddddd" : kColours[k->second % 8];
    const std::string where = k == kernel_of.end() ? "input" : absl::StrCat("kernel ", k->second);
    absl::StrAppend(&dot, "  n", id, " [label=\"%", id, " ",
                    n->realized() ? "input" : OpName(n->op()), " ", DTypeName(n->dtype()),
                    n->shape().ToString(), "\\n", where, "\", fillcolor=\"", colour, "\"];\n");
    for (const NodePtr& in : n->inputs()) {
      absl::StrAppend(&dot, "  n", number.at(in.get()), " -> n", id, ";\n");
    }
  }
  return dot + "}\n";
}

void DumpPlan(const std::string& dir, const FusionPlan& plan,
              const std::vector<const Node*>& outputs) {
  static std::atomic<int> counter{0};
  const int n = counter++;
  WriteDumpFile(dir, absl::StrCat("realize-", n, ".plan.txt"), PrintPlan(plan, outputs));
  WriteDumpFile(dir, absl::StrCat("realize-", n, ".dot"), GraphDot(plan, outputs));
}

}  // namespace tessel::backend
