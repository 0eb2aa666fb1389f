// The Hopper GEMM's walk over its parts and problems, written into its configuration.
#ifndef TESSEL_CODEGEN_GEMM_SM90_WALK_H_
#define TESSEL_CODEGEN_GEMM_SM90_WALK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/code_writer.h"
#include "codegen/gemm_common.h"

namespace tessel::codegen {

// The config's walk over the parts' tile columns: TILES_N, and part(tn), which finds the
// part of tile column tn and makes tn local to it. Returns TILES_N.
int64_t EmitPartWalk(CodeWriter& w, const std::vector<GemmProblem>& walk, const GemmTile& tile);

// A grouped GEMM's walk: TILES, work(t) (the problem of tile t, the longest K first so that
// the persistent walk's last tiles are short ones, then a band walk inside it) and
// k_steps(part). Returns TILES.
int64_t EmitProblemWalk(CodeWriter& w, const std::vector<GemmProblem>& parts, const GemmTile& tile);

// A lambda giving part i's tensor map, tmap<first + i>.
std::string MapOfPart(size_t first, size_t count);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GEMM_SM90_WALK_H_
