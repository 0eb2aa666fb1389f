#include "tools/ptx_loops.h"

#include <cctype>
#include <cstddef>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace tessel::tools {
namespace {

// One instruction's effect on the flow: on to the next, to a label, or out of the function.
struct Step {
  bool conditional = false;           // guarded by a predicate (@%p, @!%p)
  bool leaves = false;                // ret, exit, trap, or a branch through a table
  std::optional<std::string> target;  // a branch's label
};

// One function's body: its instructions in order and the instruction each label names.
struct Body {
  std::string name;
  std::vector<Step> steps;
  absl::flat_hash_map<std::string, size_t> labels;
};

// The text without // and /* */ comments.
std::string WithoutComments(absl::string_view ptx) {
  std::string out;
  for (size_t i = 0; i < ptx.size(); ++i) {
    if (ptx.substr(i, 2) == "//") {
      while (i < ptx.size() && ptx[i] != '\n') ++i;
    } else if (ptx.substr(i, 2) == "/*") {
      const size_t end = ptx.find("*/", i + 2);
      i = end == absl::string_view::npos ? ptx.size() : end + 1;
      continue;
    }
    if (i < ptx.size()) out.push_back(ptx[i]);
  }
  return out;
}

bool IsLabelChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// Takes the labels ("name:") at the start of `text`, leaving the instruction after them.
std::vector<std::string> TakeLabels(absl::string_view& text) {
  std::vector<std::string> labels;
  while (true) {
    text = absl::StripLeadingAsciiWhitespace(text);
    size_t n = 0;
    while (n < text.size() && IsLabelChar(text[n])) ++n;
    if (n == 0 || n >= text.size() || text[n] != ':') return labels;
    labels.emplace_back(text.substr(0, n));
    text.remove_prefix(n + 1);
  }
}

Step Classify(absl::string_view instruction) {
  Step step;
  std::vector<absl::string_view> tokens =
      absl::StrSplit(instruction, absl::ByAnyChar(" \t\n,"), absl::SkipEmpty());
  if (!tokens.empty() && absl::StartsWith(tokens[0], "@")) {
    step.conditional = true;
    tokens.erase(tokens.begin());
  }
  if (tokens.empty()) return step;
  const absl::string_view op = tokens[0];
  if (op == "ret" || absl::StartsWith(op, "ret.") || op == "exit" || op == "trap" ||
      absl::StartsWith(op, "brx")) {
    step.leaves = true;
  } else if (op == "bra" || absl::StartsWith(op, "bra.")) {
    step.target = std::string(tokens.back());
  }
  return step;
}

// The functions' bodies: from the first { after .entry or .func to its matching }. Braces
// inside (scopes of inline asm, vector operands) are balanced and carry no flow.
std::vector<Body> Bodies(const std::string& ptx) {
  std::vector<Body> bodies;
  size_t at = 0;
  while (true) {
    const size_t entry = ptx.find(".entry", at), func = ptx.find(".func", at);
    const size_t start = std::min(entry, func);
    if (start == std::string::npos) return bodies;
    size_t name_begin = start + (start == entry ? 6 : 5);
    while (name_begin < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[name_begin]))) {
      ++name_begin;
    }
    if (name_begin < ptx.size() && ptx[name_begin] == '(') {  // .func (.reg .b32 r) name(
      name_begin = ptx.find(')', name_begin) + 1;
      while (name_begin < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[name_begin]))) {
        ++name_begin;
      }
    }
    size_t name_end = name_begin;
    while (name_end < ptx.size() && IsLabelChar(ptx[name_end])) ++name_end;
    const size_t open = ptx.find_first_of("{;", name_end);
    if (open == std::string::npos) return bodies;
    if (ptx[open] == ';') {  // a declaration without a body
      at = open + 1;
      continue;
    }
    int depth = 0;
    size_t close = open;
    for (; close < ptx.size(); ++close) {
      if (ptx[close] == '{') ++depth;
      if (ptx[close] == '}' && --depth == 0) break;
    }
    Body body;
    body.name = ptx.substr(name_begin, name_end - name_begin);
    std::string text = ptx.substr(open + 1, close - open - 1);
    for (char& c : text) {
      if (c == '{' || c == '}') c = ' ';
    }
    for (absl::string_view piece : absl::StrSplit(text, ';')) {
      for (std::string& label : TakeLabels(piece)) body.labels[label] = body.steps.size();
      piece = absl::StripAsciiWhitespace(piece);
      if (!piece.empty() && piece[0] != '.') body.steps.push_back(Classify(piece));
    }
    bodies.push_back(std::move(body));
    at = close + 1;
  }
}

// Whether some instruction the start reaches cannot reach the way out (node steps.size()).
bool HasEndlessLoop(const Body& body) {
  const size_t n = body.steps.size(), out = n;
  std::vector<std::vector<size_t>> next(n + 1), previous(n + 1);
  for (size_t i = 0; i < n; ++i) {
    const Step& s = body.steps[i];
    std::vector<size_t> to;
    if (s.leaves) to.push_back(out);
    if (s.target) {
      auto it = body.labels.find(*s.target);
      to.push_back(it == body.labels.end() ? out : it->second);  // unknown: assume it leaves
    }
    if (s.conditional || (!s.leaves && !s.target)) to.push_back(i + 1);  // i + 1 == n: the end
    for (size_t j : to) {
      next[i].push_back(j);
      previous[j].push_back(i);
    }
  }
  auto reach = [](const std::vector<std::vector<size_t>>& edges, size_t from) {
    std::vector<bool> seen(edges.size(), false);
    std::vector<size_t> stack = {from};
    seen[from] = true;
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      for (size_t j : edges[i]) {
        if (!seen[j]) seen[j] = true, stack.push_back(j);
      }
    }
    return seen;
  };
  const std::vector<bool> from_start = reach(next, 0), to_out = reach(previous, out);
  for (size_t i = 0; i < n; ++i) {
    if (from_start[i] && !to_out[i]) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> FunctionsWithEndlessLoops(absl::string_view ptx) {
  std::vector<std::string> names;
  for (const Body& body : Bodies(WithoutComments(ptx))) {
    if (HasEndlessLoop(body)) names.push_back(body.name);
  }
  return names;
}

}  // namespace tessel::tools
