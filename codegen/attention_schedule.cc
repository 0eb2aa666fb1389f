#include "codegen/attention_schedule.h"

#include <algorithm>

#include "absl/numeric/bits.h"
#include "absl/strings/str_cat.h"
#include "codegen/gemm_common.h"

namespace tessel::codegen {
namespace {

constexpr int64_t kSms = 132;  // H100 SXM; only shapes the split over the keys

}  // namespace

AttentionSchedule ChooseSchedule(const FusedKernel& kernel, const Target& target,
                                 const AttentionOperand& q, const AttentionOperand& k,
                                 const AttentionOperand& v, const std::vector<KeyBand>& bands) {
  const Shape& s = kernel.scores->shape();
  const int64_t sq = s[s.rank() - 2], sk = s[s.rank() - 1];
  const int64_t d = HeadDimension(q);
  const Shape batch = BatchOf(kernel.matmul->shape());
  AttentionSchedule a;
  // The warpgroups trade registers: f calling a function with a stack frame stays on mma.sync.
  // So do heads of 129 to 192 columns: padded to 256, their last 64-column chunk would be a
  // TMA box wholly past the row's end, not yet run on a GPU (a byte count short of the box
  // would hang the block); docs/plans/attention_throughput.md says how to lift this.
  const int64_t cols = q.node->shape()[q.d_axis];
  a.hopper = target.major == 9 && target.arch_specific && !CallsWithStack(kernel) &&
             !(d == 256 && cols <= 192);
  a.tiles = a.hopper ? AttentionTiles{128, 128} : AttentionTiles{};
  // D = 256: O alone takes 128 of a consumer's 232 registers; key tiles of 80 (FlashAttention-3's)
  // leave S 40 and P 20, and Q (64 KB) and two stages of K and V (160 KB) just fit in shared
  // memory. 2.8-3.6% faster than 64 on the H100 (bench/RESULTS.md, twenty-fourth session).
  if (a.hopper && d == 256) a.tiles.key = 80;
  // D = 64 on Hopper: 192 query rows, three consumer warpgroups (FlashAttention-3's tile): the
  // products take half the time of D = 128's, so the softmax's latency weighs more and a
  // third warpgroup hides it; 160 registers each hold key tiles of 128.
  if (a.hopper && d == 64) a.tiles.query = 192;
  a.fold = FoldHeadGroups(q, k, v, batch, sq, a.tiles.query);
  a.query_tiles = CeilDiv(a.fold.factor * sq, a.tiles.query);
  a.entries = std::max<int64_t>(1, batch.numel()) / a.fold.factor;
  // Where the query tiles fill less than half the SMs (decoding with few heads), each splits
  // the keys among blocks of its own (shares of at least 4 key tiles), merged by the last share
  // of each to arrive (tessel_attention_finish_split) or by a combine launch (below). As many
  // shares as fill the SMs once: a few more would run as a second round, doubling the time. Finer
  // shares taken by ticket (1, 2 or 4 key tiles, all SMs busy) measured no faster: 1 x 32 (8 KV) x
  // 16384 keys took 30 us as split 16 ways, 31-35 us by ticket; its time is the launches' and the
  // pipeline's start and drain, not blocks of unequal speed (bench/RESULTS.md, thirty-second
  // session).
  if (a.hopper && a.query_tiles * a.entries <= kSms / 2) {
    a.splits = std::max<int64_t>(
        1, std::min(CeilDiv(sk, a.tiles.key) / 4, kSms / (a.query_tiles * a.entries)));
  }
  // The merge in the kernel saves the combine's launch: 4% on the H200 at 1 x 32 (8 K/V) x
  // 16384 keys (16 shares of 4 rows), but its threads merge one float4 of a row over 16
  // shares a round trip: one head split 128 ways took 35% longer than the combine's 16 warps a
  // row (bench/RESULTS.md, forty-sixth session). So where two rounds of each thread's loads
  // cover the rows (rows x D <= 1024) and one their shares (16): 8 query heads a K/V head
  // (8 rows) split 16 ways, 2.2-2.7% faster merged here (forty-eighth session), 32 rows of
  // multi-query split 32 ways 42% slower. FusionOptions::split_merge forces either.
  if (a.splits > 1) {
    const bool few_rounds = a.splits <= 16 && a.fold.factor * sq * d <= 1024;
    a.merge_last = kernel.split_merge == SplitMerge::kChosen
                       ? few_rounds
                       : kernel.split_merge == SplitMerge::kLast;
  }
  // The combine merges a row's shares in parts of at least 8, a warp each (a warp loads 16
  // shares of a row at once at D = 128, 32 at 64, 8 at 256), in as many parts as fit a power
  // of two (tessel_attention_merge_rows), and a block takes as many rows as leave each of its
  // 16 warps one part, so that the shares of multi-query decode spread over blocks. 32 rows of
  // 132 shares in one block of 64 rows took 28-34 us, each warp 2 rows of 25 round trips in a
  // row (forty-ninth session).
  if (a.splits > 1 && !a.merge_last) {
    const int64_t parts = std::min<int64_t>(CeilDiv(a.splits, 8), 16);
    a.combine_rows = 16 / static_cast<int64_t>(absl::bit_floor(static_cast<uint64_t>(parts)));
  }
  // Without masks or a split, key tiles of 176 (FlashAttention-3's): fewer rounds of turns,
  // waits and O rescales a key. On the H100 (bench/RESULTS.md, twenty-second session) 1.5-2.5%
  // faster than 128 at D = 64 and 128, GQA and S = 16384, but 2.5-4% slower under causal
  // masks (the band's diagonal tiles grow); 160 was between. With tickets and one compare a
  // key on diagonal tiles (twenty-third session) still 1.5-3% slower at S = 4096 under causal
  // masks, 1% faster at 16384: masks keep 128. Splits keep 128: shares of 4 tiles of 176
  // would be fewer and leave SMs idle. Tiles of 192 queries keep 128 and D = 256 80 (registers).
  if (a.hopper && bands.empty() && a.splits == 1 && d == 128) a.tiles.key = 176;
  // Under masks that leave query tiles different numbers of keys (causal: 1 to S_K / 128), a
  // fixed share of the work tiles per block leaves blocks idle at the end: at B x H = 128,
  // S = 4096, each of 132 blocks walks 31 or 32 tiles, and the largest sum is 1.12 times the
  // mean. Taking tiles by ticket, longest first over several entries, evens the sums out; the
  // group of entries whose keys and values run at once stays within 16 MB (L2: 50 MB). With one
  // query tile an entry (decoding) the bands leave every work tile the same keys: no tickets.
  if (a.hopper && !bands.empty() && a.splits == 1 && a.query_tiles > 1 && kernel.work_tickets) {
    a.tickets = true;
    a.group = std::clamp<int64_t>((int64_t{16} << 20) / (sk * d * 4), 1, a.entries);
  }
  const int stages = d == 64 ? 4 : 2;  // tessel_attention_sm90_layout's STAGES
  // Q, the stages' K and V tiles, the barriers (tessel_attention_sm90_layout); Q and two K and
  // V tiles of rows padded by 8 elements, one of each at D = 256 (tessel_attention_sm80_layout).
  const int buffers = d <= 128 ? 2 : 1;
  a.smem = a.hopper ? 1024 + (a.tiles.query + 2 * stages * a.tiles.key) * d * 2 +
                          (2 + 4 * stages) * 8 + 16
                    : (a.tiles.query + 2 * buffers * a.tiles.key) * (d + 8) * 2;
  return a;
}

std::string DescribeSchedule(const AttentionSchedule& a, const std::vector<KeyBand>& bands,
                             int64_t d, int64_t cols) {
  std::string text = absl::StrCat(a.hopper ? "wgmma" : "mma.sync", ", tiles of ", a.tiles.query,
                                  " queries x ", a.tiles.key, " keys");
  if (cols != d) absl::StrAppend(&text, ", head dimension ", cols, " padded to ", d);
  if (a.fold.factor > 1) {
    absl::StrAppend(&text, ", the ", a.fold.factor, " query heads of a K/V head as rows");
  }
  if (a.splits > 1) {
    absl::StrAppend(&text, ", keys split ", a.splits, " ways and combined",
                    a.merge_last ? " by the last share"
                                 : absl::StrCat(" by blocks of ", a.combine_rows,
                                                a.combine_rows == 1 ? " row" : " rows"));
  }
  if (a.tickets) {
    absl::StrAppend(&text, ", work tiles by ticket, longest first in groups of ", a.group,
                    a.group == 1 ? " entry" : " entries");
  }
  if (!bands.empty()) {
    absl::StrAppend(&text, ", key tiles outside ", bands.size(),
                    bands.size() == 1 ? " mask band" : " mask bands", " skipped");
  }
  return text;
}

}  // namespace tessel::codegen
