// The Hopper GEMM's walk as its configuration states it (gemm_sm90_codegen.cc writes the rest):
// which part a tile column belongs to (siblings), or which problem a tile is (grouped), and a
// part's tensor map.
#include "codegen/gemm_sm90_walk.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessel::codegen {

int64_t EmitPartWalk(CodeWriter& w, const std::vector<GemmProblem>& walk, const GemmTile& tile) {
  std::vector<int64_t> tiles_n;
  int64_t all = 0;
  for (const GemmProblem& part : walk) {
    tiles_n.push_back(CeilDiv(part.n, tile.bn));
    all += tiles_n.back();
  }
  w.Line("static constexpr int TILES_N = ", all, ";",
         tiles_n.size() > 1 ? absl::StrCat("  // ", absl::StrJoin(tiles_n, " + "), " for the parts")
                            : "");
  if (tiles_n.size() == 1) {
    w.Line("static __device__ int part(int&) { return 0; }");
    return all;
  }
  auto body = w.Block("static __device__ int part(int& tn)");
  int64_t first = 0;
  for (size_t i = 0; i + 1 < tiles_n.size(); ++i) {
    const int64_t end = first + tiles_n[i];
    if (first == 0) {
      w.Line("if (tn < ", end, ") return ", i, ";");
    } else {
      w.Line("if (tn < ", end, ") return tn -= ", first, ", ", i, ";");
    }
    first = end;
  }
  w.Line("return tn -= ", first, ", ", tiles_n.size() - 1, ";");
  return all;
}

int64_t EmitProblemWalk(CodeWriter& w, const std::vector<GemmProblem>& parts,
                        const GemmTile& tile) {
  std::vector<size_t> order(parts.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return parts[a].k > parts[b].k; });
  int64_t all = 0;
  for (const GemmProblem& part : parts) {
    all += CeilDiv(part.m, tile.bm) * CeilDiv(part.n, tile.bn);
  }
  w.Line("static constexpr int TILES = ", all, ";");
  {
    auto body = w.Block("static __device__ tessel_gemm_sm90_work work(int t)");
    w.Line("tessel_gemm_sm90_work w{0, 0, 0, 0};");
    int64_t first = 0;
    for (size_t i : order) {
      const int64_t tiles_m = CeilDiv(parts[i].m, tile.bm), tiles_n = CeilDiv(parts[i].n, tile.bn);
      const int64_t end = first + tiles_m * tiles_n;
      std::optional<CodeWriter::Scope> problem;
      if (i != order.back()) {
        w.Line("if (t < ", end, ") {");
        problem.emplace(&w, "}");
      }
      w.Line("w.part = ", i, ";");
      w.Line("tessel_gemm_sm90_band<gemm_config>(t - ", first, ", ", tiles_m, ", ", tiles_n,
             ", w.tm, w.tn);");
      w.Line("return w;");
      first = end;
    }
  }
  auto body = w.Block("static __device__ int k_steps(int part)");
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    w.Line("if (part == ", i, ") return ", CeilDiv(parts[i].k, tile.bk), ";");
  }
  w.Line("return ", CeilDiv(parts.back().k, tile.bk), ";");
  return all;
}

std::string MapOfPart(size_t first, size_t count) {
  if (count == 1) return absl::StrCat("[&](int) { return &tmap", first, "; }");
  std::string choice = absl::StrCat("&tmap", first + count - 1);
  for (size_t i = count - 1; i-- > 0;) {
    choice = absl::StrCat("part == ", i, " ? &tmap", first + i, " : ", choice);
  }
  return absl::StrCat("[&](int part) { return ", choice, "; }");
}

}  // namespace tessel::codegen
