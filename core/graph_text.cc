#include "core/graph_text.h"

#include <cstdlib>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/realize.h"
#include "core/status_macros.h"
#include "core/topo_order.h"

namespace tessel {
namespace {

std::string TypeText(DType dtype, const Shape& shape) {
  return absl::StrCat(DTypeName(dtype), shape.ToString());
}

// The shortest decimal that reads back as exactly `v`.
std::string ShortestDouble(double v) {
  for (int digits = 6; digits < 17; ++digits) {
    std::string text = absl::StrFormat("%.*g", digits, v);
    double back;
    if (absl::SimpleAtod(text, &back) && back == v) return text;
  }
  return absl::StrFormat("%.17g", v);
}

// " value=1.5", " axes=[0,1]", " axis=1 start=0 end=4" per the op table's attribute spec.
std::string AttrText(const Node& node) {
  const absl::string_view spec = GetOpInfo(node.op()).attrs;
  if (spec.empty()) return "";
  if (spec == "value") return absl::StrCat(" value=", ShortestDouble(node.attrs().value));
  std::string text;
  size_t next_int = 0;
  for (absl::string_view name : absl::StrSplit(spec, ' ')) {
    if (absl::ConsumePrefix(&name, "[")) {
      absl::ConsumeSuffix(&name, "]");
      absl::StrAppend(&text, " ", name, "=[", absl::StrJoin(node.attrs().ints, ","), "]");
      next_int = node.attrs().ints.size();
    } else if (next_int < node.attrs().ints.size()) {
      absl::StrAppend(&text, " ", name, "=", node.attrs().ints[next_int++]);
    }
  }
  return text;
}

}  // namespace

std::string PrintGraphLine(const Node& node, int number,
                           const absl::flat_hash_map<const Node*, int>& numbers) {
  const bool leaf = node.realized() || node.op() == OpKind::kInput;
  std::string text = absl::StrCat("%", number, " = ", leaf ? "input" : OpName(node.op()), " ",
                                  TypeText(node.dtype(), node.shape()));
  if (leaf) return text;
  for (size_t i = 0; i < node.inputs().size(); ++i) {
    absl::StrAppend(&text, i == 0 ? " %" : ", %", numbers.at(node.inputs()[i].get()));
  }
  absl::StrAppend(&text, AttrText(node));
  return text;
}

std::string PrintGraph(const std::vector<Tensor>& outputs) {
  std::vector<const Node*> roots;
  for (const Tensor& t : outputs) roots.push_back(CheckedNode(t, "PrintGraph").get());
  const auto lock = LockGraphForReading();
  absl::flat_hash_map<const Node*, int> number;
  std::string text;
  for (const Node* node : TopologicalOrder(roots, /*include_realized=*/true)) {
    const int n = static_cast<int>(number.size());
    number[node] = n;
    absl::StrAppend(&text, PrintGraphLine(*node, n, number), "\n");
  }
  std::vector<std::string> names;
  for (const Node* root : roots) names.push_back(absl::StrCat("%", number.at(root)));
  absl::StrAppend(&text, "return ", absl::StrJoin(names, ", "), "\n");
  return text;
}

Tensor ParsedGraph::Value(absl::string_view name) const {
  for (const auto& [n, t] : values) {
    if (n == name) return t;
  }
  return Tensor();
}

namespace {

absl::Status LineError(int line, absl::string_view msg) {
  return absl::InvalidArgumentError(absl::StrCat("graph text line ", line, ": ", msg));
}

absl::StatusOr<std::pair<DType, Shape>> ParseType(absl::string_view text) {
  const size_t open = text.find('[');
  DType dtype;
  if (open == absl::string_view::npos || text.back() != ']' ||
      !ParseDType(text.substr(0, open), &dtype)) {
    return absl::InvalidArgumentError(absl::StrCat("bad type '", text, "'"));
  }
  Shape::Dims dims;
  absl::string_view inner = text.substr(open + 1, text.size() - open - 2);
  for (absl::string_view d : absl::StrSplit(inner, ',', absl::SkipEmpty())) {
    int64_t v;
    if (!absl::SimpleAtoi(d, &v) || v < 0) {
      return absl::InvalidArgumentError(absl::StrCat("bad dimension '", d, "'"));
    }
    dims.push_back(v);
  }
  return std::make_pair(dtype, Shape(dims));
}

absl::Status ParseAttr(OpKind op, absl::string_view token, Attrs* attrs) {
  std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(token, '=');
  if (kv.first == "value") {
    return absl::SimpleAtod(kv.second, &attrs->value)
               ? absl::OkStatus()
               : absl::InvalidArgumentError(absl::StrCat("bad value '", kv.second, "'"));
  }
  absl::string_view list = kv.second;
  const bool is_list = absl::ConsumePrefix(&list, "[") && absl::ConsumeSuffix(&list, "]");
  const std::string spec_name = is_list ? absl::StrCat("[", kv.first, "]") : std::string(kv.first);
  if (!absl::StrContains(GetOpInfo(op).attrs, spec_name)) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpName(op), " takes no attribute '", kv.first, "'"));
  }
  for (absl::string_view v : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    int64_t i;
    if (!absl::SimpleAtoi(v, &i)) {
      return absl::InvalidArgumentError(absl::StrCat("bad integer '", v, "'"));
    }
    attrs->ints.push_back(i);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GraphLine> ParseGraphLine(absl::string_view line) {
  std::vector<absl::string_view> tokens = absl::StrSplit(line, ' ', absl::SkipEmpty());
  if (tokens.size() < 4 || tokens[1] != "=" || !absl::StartsWith(tokens[0], "%")) {
    return absl::InvalidArgumentError("expected '%name = op type operands attributes'");
  }
  GraphLine parsed;
  parsed.name = std::string(absl::StripPrefix(tokens[0], "%"));
  if (!ParseOpKind(tokens[2], &parsed.op)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown operation '", tokens[2], "'"));
  }
  TESSEL_ASSIGN_OR_RETURN(auto type, ParseType(tokens[3]));
  std::tie(parsed.dtype, parsed.shape) = type;
  for (size_t i = 4; i < tokens.size(); ++i) {
    absl::string_view tok = absl::StripSuffix(tokens[i], ",");
    if (absl::ConsumePrefix(&tok, "%")) {
      parsed.operands.emplace_back(tok);
    } else {
      TESSEL_RETURN_IF_ERROR(ParseAttr(parsed.op, tok, &parsed.attrs));
    }
  }
  const int arity = GetOpInfo(parsed.op).arity;
  if (arity >= 0 && static_cast<int>(parsed.operands.size()) != arity) {
    return absl::InvalidArgumentError(absl::StrCat(OpName(parsed.op), " takes ", arity,
                                                   " operands, not ", parsed.operands.size()));
  }
  return parsed;
}

absl::StatusOr<ParsedGraph> ParseGraph(absl::string_view text, Device device) {
  ParsedGraph graph;
  absl::flat_hash_map<std::string, NodePtr> values;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || absl::StartsWith(line, "//")) continue;
    if (absl::ConsumePrefix(&line, "return")) {
      for (absl::string_view name : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
        name = absl::StripSuffix(name, ",");
        auto it = values.find(absl::StripPrefix(name, "%"));
        if (it == values.end()) return LineError(line_no, absl::StrCat("unknown ", name));
        graph.outputs.push_back(Tensor(it->second));
      }
      continue;
    }
    absl::StatusOr<GraphLine> parsed = ParseGraphLine(line);
    if (!parsed.ok()) return LineError(line_no, parsed.status().message());
    NodeInputs inputs;
    for (const std::string& operand : parsed->operands) {
      auto it = values.find(operand);
      if (it == values.end()) return LineError(line_no, absl::StrCat("unknown %", operand));
      inputs.push_back(it->second);
    }
    NodePtr node = parsed->op == OpKind::kInput
                       ? MakeInputNode(parsed->dtype, device, parsed->shape, nullptr)
                       : MakeNode(parsed->op, parsed->dtype, device, parsed->shape,
                                  std::move(inputs), std::move(parsed->attrs));
    graph.values.emplace_back(parsed->name, Tensor(node));
    values[parsed->name] = std::move(node);
  }
  return graph;
}

}  // namespace tessel
