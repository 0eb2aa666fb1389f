// How an attention kernel covers its problem (fusion/attention.h's group): on which device
// function, with which tiles, folding which head groups into rows, over how many blocks and
// in what order; chosen from the operands' shapes, the target and the masks' bands.
#ifndef TESSEL_CODEGEN_ATTENTION_SCHEDULE_H_
#define TESSEL_CODEGEN_ATTENTION_SCHEDULE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/attention_band.h"
#include "codegen/attention_operands.h"
#include "core/target.h"
#include "fusion/plan.h"

namespace tessel::codegen {

// The kernels' tiles (tessel_attention_sm80_layout and tessel_attention_sm90_layout: BQ, BK).
struct AttentionTiles {
  int query = 64, key = 64;
};

// How the kernel covers the problem: the device function, its tiles, the folding of head
// groups, the blocks (query tiles x entries, each split over the keys) and shared memory.
struct AttentionSchedule {
  bool hopper = false;
  AttentionTiles tiles;
  Folding fold;
  int64_t query_tiles = 1, entries = 1, splits = 1, smem = 0;
  // Hopper: blocks take work tiles by ticket, longest first across groups of `group` entries
  // (tessel_attention_sm90_work); otherwise a fixed share, entry by entry.
  bool tickets = false;
  int64_t group = 1;
  // A split's shares merged by the last of each to arrive, in the kernel (attention_split_
  // merge.cuh), not by a second launch (tessel_attention_combine).
  bool merge_last = false;
  // The combine launch's rows a block: as many as leave each of its 16 warps a part of a row's
  // shares of about 8 (tessel_attention_combine).
  int64_t combine_rows = 16;
};

// The schedule of `kernel` (an attention group) for `target`.
AttentionSchedule ChooseSchedule(const FusedKernel& kernel, const Target& target,
                                 const AttentionOperand& q, const AttentionOperand& k,
                                 const AttentionOperand& v, const std::vector<KeyBand>& bands);

// The schedule as explain() shows it (`cols`: the head's columns, `d` their padded count).
std::string DescribeSchedule(const AttentionSchedule& a, const std::vector<KeyBand>& bands,
                             int64_t d, int64_t cols);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_ATTENTION_SCHEDULE_H_
