#include "tools/fuzz/minimize.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tools/fuzz/program.h"

namespace tessel::fuzz {
namespace {

using Program = std::vector<Statement>;

bool GivesShape(OpKind op) {
  switch (op) {
    case OpKind::kInput:
    case OpKind::kFull:
    case OpKind::kArange:
    case OpKind::kRand:
    case OpKind::kRandn:
    case OpKind::kReshape:
    case OpKind::kBroadcast:
      return true;
    default:
      return false;
  }
}

void Rename(Program& p, const std::string& from, const std::string& to) {
  for (Statement& s : p) {
    for (std::string& n : s.kind == Statement::kValue ? s.line.operands : s.names) {
      if (n == from) n = to;
    }
  }
}

// Every smaller program one step away, biggest cuts first.
std::vector<Program> Candidates(const Program& p) {
  std::vector<Program> out;
  for (size_t i = 0; i < p.size(); ++i) {
    const Statement& s = p[i];
    if (s.kind == Statement::kValue) continue;
    if (s.kind == Statement::kRealize) {
      Program c = p;
      c.erase(c.begin() + i);
      out.push_back(std::move(c));
    }
    for (size_t j = 0; s.names.size() > 1 && j < s.names.size(); ++j) {
      Program c = p;
      c[i].names.erase(c[i].names.begin() + j);
      out.push_back(std::move(c));
    }
  }
  for (size_t i = p.size(); i-- > 0;) {
    const Statement& s = p[i];
    if (s.kind != Statement::kValue || s.line.op == OpKind::kInput) continue;
    Program cut = p;
    GraphLine& line = cut[i].line;
    line.op = OpKind::kInput;
    line.operands.clear();
    line.attrs = {};
    out.push_back(std::move(cut));
    for (const std::string& operand : s.line.operands) {
      Program bypass = p;
      Rename(bypass, s.line.name, operand);
      bypass.erase(bypass.begin() + i);
      out.push_back(std::move(bypass));
    }
  }
  std::set<int64_t> extents;
  for (const Statement& s : p) {
    if (s.kind != Statement::kValue || !GivesShape(s.line.op)) continue;
    for (int64_t d : s.line.shape.dims()) {
      if (d > 1) extents.insert(d);
    }
  }
  for (auto it = extents.rbegin(); it != extents.rend(); ++it) {
    for (int64_t to : {(*it + 1) / 2, int64_t{1}}) {
      Program c = p;
      for (Statement& s : c) {
        if (s.kind != Statement::kValue || !GivesShape(s.line.op)) continue;
        for (int d = 0; d < s.line.shape.rank(); ++d) {
          if (s.line.shape[d] == *it) s.line.shape[d] = to;
        }
      }
      out.push_back(std::move(c));
    }
  }
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i].kind != Statement::kValue || p[i].line.op != OpKind::kInput) continue;
    const Shape& shape = p[i].line.shape;
    for (int d = 0; d < shape.rank(); ++d) {
      if (shape[d] != 1) continue;
      Program c = p;
      Shape::Dims dims = shape.dims();
      dims.erase(dims.begin() + d);
      c[i].line.shape = Shape(dims);
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::string TempPath() {
  char path[] = "/tmp/tessel-fuzz-XXXXXX";
  const int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  return path;
}

}  // namespace

std::string SignatureInChild(const std::string& text, const MinimizeOptions& options) {
  const std::string file = TempPath();
  std::ofstream(file) << text;
  const std::string command = absl::StrCat(
      options.self, " run ", absl::StrJoin(CheckFlags(options.check), " "), " --program=", file,
      " --data_seed=", options.check.data_seed, " --signature_only");
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char chunk[4096];
  size_t n;
  while (pipe != nullptr && (n = fread(chunk, 1, sizeof(chunk), pipe)) > 0) output.append(chunk, n);
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  std::remove(file.c_str());
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (absl::ConsumePrefix(&line, "@signature ")) return std::string(line);
  }
  if (WIFSIGNALED(status)) return absl::StrCat("crash: signal ", WTERMSIG(status));
  // popen's shell reports a child killed by a signal as exit status 128 + the signal.
  if (WIFEXITED(status) && WEXITSTATUS(status) > 128) {
    return absl::StrCat("crash: signal ", WEXITSTATUS(status) - 128);
  }
  return absl::StrCat("crash: exit ", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

std::string Minimize(const std::string& text, const SignatureOf& signature_of,
                     std::string* signature, bool verbose) {
  *signature = signature_of(text);
  if (signature->empty() || *signature == "invalid") return text;
  if (verbose) std::fprintf(stderr, "minimizing: %s\n", signature->c_str());
  absl::StatusOr<Program> current = ParseProgram(text);
  if (!current.ok()) return text;
  std::string current_text = text;
  std::set<std::string> tried;
  for (bool progress = true; progress;) {
    progress = false;
    for (const Program& candidate : Candidates(*current)) {
      absl::StatusOr<std::string> normalized = Normalize(candidate);
      if (!normalized.ok() || !tried.insert(*normalized).second) continue;
      if (normalized->size() > current_text.size() + 200) continue;  // not smaller
      if (signature_of(*normalized) != *signature) continue;
      current_text = *normalized;
      current = ParseProgram(current_text);
      if (verbose) {
        std::fprintf(stderr, "  %d lines\n",
                     static_cast<int>(std::count(current_text.begin(), current_text.end(), '\n')));
      }
      progress = true;
      break;
    }
  }
  return current_text;
}

std::string Minimize(const std::string& text, const MinimizeOptions& options,
                     std::string* signature) {
  return Minimize(
      text, [&](const std::string& t) { return SignatureInChild(t, options); }, signature,
      options.verbose);
}

}  // namespace tessel::fuzz
