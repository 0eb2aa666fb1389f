#include "backend/inspect.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backend/cuda_backend.h"
#include "codegen/generate.h"
#include "core/realize.h"
#include "core/topo_order.h"
#include "runtime/nvrtc_compiler.h"

namespace tessel {
namespace {

// `op`: the caller, which errors name.
std::vector<const Node*> Nodes(const std::vector<Tensor>& outputs, const char* op) {
  std::vector<const Node*> nodes;
  for (const Tensor& t : outputs) nodes.push_back(CheckedNode(t, op).get());
  return nodes;
}

// The plan realize() would run on CUDA now, with the kernels that take dynamic rows where
// the backend has learned them (`rows` then says how; empty otherwise).
struct Inspected {
  codegen::GeneratedPlan generated;
  std::string rows;
};

// `op`: the caller, which errors name.
Inspected Generate(const std::vector<const Node*>& roots, absl::string_view op) {
  Program program = CollectProgram(roots);
  RefuseUndoneReads(program, op);
  Inspected in{codegen::PlanAndGenerate(roots, runtime::DeviceTarget()), ""};
  if (!roots.empty()) program.device_index = roots[0]->device_index();
  std::optional<backend::DynamicChoice> choice = backend::PeekDynamicRows(program);
  if (!choice.has_value()) return in;
  in.generated =
      codegen::PlanAndGenerateWithRows(program, runtime::DeviceTarget(), choice->dynamic);
  const std::string batch = absl::StrCat("the batch (dim 0 of ", choice->dynamic.nodes.size(),
                                         " values, now ", choice->rows, ")");
  const std::string bucket =
      absl::StrCat("batches ", choice->dynamic.max / 2 + 1, " to ", choice->dynamic.max);
  const bool any = std::any_of(in.generated.kernels.begin(), in.generated.kernels.end(),
                               [](const codegen::KernelSource& k) { return k.takes_rows; });
  if (!any) {
    in.rows = absl::StrCat(batch,
                           " varies, but no kernel takes it as an argument: those that hold it "
                           "are made for this batch alone (\"rows:\" says why)");
  } else if (in.generated.specialized.empty()) {
    in.rows = absl::StrCat(batch, " is the kernels' rows argument; these kernels serve ", bucket);
  } else {
    in.rows = absl::StrCat(batch, " is the kernels' rows argument; kernels that take it serve ",
                           bucket, ", the others (\"rows:\") this batch alone");
  }
  return in;
}

// Why a kernel of a plan made with rows is specialized to the batch all the same.
std::string SpecializedWhy(const codegen::SpecializedKernel& s) {
  return s.fixed ? "made for this batch alone: it holds the batch at another axis than a value's "
                   "first, or reverses or gathers along it"
                 : "made for this batch alone: its generator cannot take the batch as an "
                   "argument yet (as for pointwise kernels of several shapes, f32 GEMMs whose K "
                   "is the batch, scans, sorts and attention)";
}

std::string Typed(const Node* n, const absl::flat_hash_map<const Node*, int>& number) {
  auto it = number.find(n);
  return absl::StrCat(it == number.end() ? "%?" : absl::StrCat("%", it->second), " ",
                      DTypeName(n->dtype()), n->shape().ToString());
}

}  // namespace

std::vector<KernelInfo> inspect(const std::vector<Tensor>& outputs) {
  const auto lock = LockGraphForReading();
  const codegen::GeneratedPlan g = Generate(Nodes(outputs, "inspect"), "inspect").generated;
  std::vector<KernelInfo> infos;
  for (size_t i = 0; i < g.kernels.size(); ++i) {
    KernelInfo info{g.kernels[i].name, g.kernels[i].kind, {}, g.kernels[i].source};
    for (const Node* n : g.plan.kernels[i].nodes) info.ops.push_back(std::string(OpName(n->op())));
    infos.push_back(std::move(info));
  }
  return infos;
}

std::string explain(const std::vector<Tensor>& outputs) {
  const std::vector<const Node*> roots = Nodes(outputs, "explain");
  const auto lock = LockGraphForReading();
  const Inspected inspected = Generate(roots, "explain");
  const codegen::GeneratedPlan& g = inspected.generated;
  absl::flat_hash_map<const Node*, int> number;
  for (const Node* n : TopologicalOrder(roots, /*include_realized=*/true)) {
    const int next = static_cast<int>(number.size());
    number[n] = next;
  }
  std::string text = absl::StrCat(g.kernels.size(), g.kernels.size() == 1 ? " kernel" : " kernels",
                                  " (values numbered as in PrintGraph)\n");
  absl::StrAppend(
      &text, "extents: ",
      inspected.rows.empty() ? "in the source (every extent as recorded)" : inspected.rows, "\n");
  for (size_t i = 0; i < g.kernels.size(); ++i) {
    const FusedKernel& k = g.plan.kernels[i];
    const codegen::KernelSource& ks = g.kernels[i];
    std::vector<std::string> ops, ins, outs;
    for (const Node* n : k.nodes) ops.push_back(std::string(OpName(n->op())));
    for (const Node* n : k.inputs) ins.push_back(Typed(n, number));
    for (const Node* n : k.outputs) outs.push_back(Typed(n, number));
    absl::StrAppend(&text, "\nkernel ", i, ": ", ks.name, " (", ks.kind, ")\n",
                    "  ops:     ", absl::StrJoin(ops, " "), "\n",
                    "  inputs:  ", ins.empty() ? "none" : absl::StrJoin(ins, ", "), "\n",
                    "  outputs: ", absl::StrJoin(outs, ", "), "\n");
    if (!ks.schedule.empty()) absl::StrAppend(&text, "  schedule: ", ks.schedule, "\n");
    for (const codegen::SpecializedKernel& s : g.specialized) {
      if (s.kernel != static_cast<int>(i)) continue;
      absl::StrAppend(&text, "  rows:    ", SpecializedWhy(s), "\n");
    }
    for (const codegen::Launch& l : ks.launches) {
      absl::StrAppend(
          &text, "  launch:  ", l.entry, " grid (", l.grid[0], ", ", l.grid[1], ", ", l.grid[2],
          ") x ", l.block, " threads",
          l.persistent_per_sm > 0
              ? absl::StrCat(" (work items; at most ", l.persistent_per_sm, " blocks per SM)")
              : "",
          l.rows_grid.mul > 0 ? " (grid.x from rows)" : "",
          l.shared_bytes > 0 ? absl::StrCat(", ", l.shared_bytes, " B shared") : "", "\n");
    }
    for (size_t j = 0; j < k.notes.size(); ++j) {
      const std::string node = Typed(k.notes_nodes[j], number);
      absl::StrAppend(&text, "  why:     ",
                      absl::StrReplaceAll(k.notes[j], {{"{n}", node.substr(0, node.find(' '))}}),
                      "\n");
    }
  }
  return text;
}

}  // namespace tessel
