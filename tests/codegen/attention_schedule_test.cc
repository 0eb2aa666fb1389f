// Attention kernels' schedules (codegen/attention_schedule.h): tiles, the folding of head
// groups, splits over the keys, work tiles by ticket; no GPU needed.
#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "codegen/generate.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

// Attention's schedules by shape: query heads that share K/V fold into one matrix of rows
// where tiles would be part empty, and few query tiles split the keys among blocks with a
// second launch merging the shares (on wgmma only).
TEST(AttentionScheduleTest, FoldsHeadGroupsAndSplitsKeys) {
  auto in = [](Shape s) { return Tensor(MakeInputNode(DType::kBF16, Device::kCPU, s, nullptr)); };
  auto attention = [&](const Tensor& q, const Tensor& k) {
    return matmul(softmax(matmul(q, transpose(k)), -1), in(k.shape()));
  };
  auto kernels = [](const Tensor& t, const Target& target) {
    return codegen::PlanAndGenerate({&t.node()}, target).kernels;
  };
  // One sequence decoding: 4 query heads a K/V head, 16384 keys.
  const Tensor decode = attention(in({1, 2, 4, 1, 128}), in({1, 2, 1, 16384, 128}));
  const auto hopper = kernels(decode, Target{9, 0, true});
  ASSERT_EQ(hopper.size(), 1u);
  EXPECT_TRUE(absl::StrContains(hopper[0].source, "SQ = 4, SK = 16384, BATCH = 2, SPLITS = 32"))
      << hopper[0].source;
  ASSERT_EQ(hopper[0].launches.size(), 2u);  // the shares, then their merge (32 shares)
  EXPECT_EQ(hopper[0].launches[0].grid[0], 2 * 32);
  // The shares' 4 rows of 128 values, their maxima and sums, and a counter an entry.
  EXPECT_EQ(hopper[0].workspace_bytes, 2 * (32 * 4 * 130 * 4 + 8));
  // 8 K/V heads: 16 shares an entry, of 4 rows, merged by the last share of each.
  const Tensor eight = attention(in({1, 8, 4, 1, 128}), in({1, 8, 1, 16384, 128}));
  const auto merged = kernels(eight, Target{9, 0, true});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_TRUE(absl::StrContains(merged[0].source, "SPLITS = 16")) << merged[0].source;
  EXPECT_TRUE(absl::StrContains(merged[0].source, "MERGE_LAST = true;"));
  EXPECT_EQ(merged[0].launches.size(), 1u);
  // 8 query heads a K/V head (8 rows) merge there too; 16 (2048 values a share) in a launch.
  for (const int heads : {8, 16}) {
    const auto folded = kernels(attention(in({1, 8, heads, 1, 128}), in({1, 8, 1, 16384, 128})),
                                Target{9, 0, true});
    ASSERT_EQ(folded.size(), 1u);
    EXPECT_TRUE(absl::StrContains(folded[0].source, "SPLITS = 16")) << folded[0].source;
    EXPECT_EQ(folded[0].launches.size(), heads == 8 ? 1u : 2u) << heads;
  }
  // Multi-query: 32 rows over one K/V head, their 32 shares merged by a second launch whose
  // blocks take 4 rows each (a row's shares in 4 parts of 8, a warp each).
  const auto mqa =
      kernels(attention(in({1, 1, 32, 1, 128}), in({1, 1, 1, 16384, 128})), Target{9, 0, true});
  ASSERT_EQ(mqa.size(), 1u);
  EXPECT_TRUE(absl::StrContains(mqa[0].source, "SPLITS = 32")) << mqa[0].source;
  EXPECT_TRUE(absl::StrContains(mqa[0].source, "COMBINE_ROWS = 4;"));
  ASSERT_EQ(mqa[0].launches.size(), 2u);
  EXPECT_EQ(mqa[0].launches[1].grid[0], 8);
  EXPECT_TRUE(absl::StrContains(mqa[0].schedule, "split 32 ways and combined by blocks of 4 rows"))
      << mqa[0].schedule;
  // 131072 keys: 132 shares, a row's in 16 parts, a block a row.
  const auto long_mqa =
      kernels(attention(in({1, 1, 32, 1, 128}), in({1, 1, 1, 131072, 128})), Target{9, 0, true});
  ASSERT_EQ(long_mqa.at(0).launches.size(), 2u);
  EXPECT_TRUE(absl::StrContains(long_mqa[0].source, "SPLITS = 132")) << long_mqa[0].source;
  EXPECT_EQ(long_mqa[0].launches[1].grid[0], 32);
  // 40000 keys: 78 shares, a row's in 8 parts of 10 (a power of two, each warp one), blocks
  // of 2 rows.
  const auto mid_mqa =
      kernels(attention(in({1, 1, 32, 1, 128}), in({1, 1, 1, 40000, 128})), Target{9, 0, true});
  EXPECT_TRUE(absl::StrContains(mid_mqa.at(0).source, "SPLITS = 78")) << mid_mqa[0].source;
  EXPECT_TRUE(absl::StrContains(mid_mqa[0].source, "COMBINE_ROWS = 2;"));
  EXPECT_EQ(mid_mqa[0].launches.at(1).grid[0], 16);
  // Few shares: blocks of 16 rows, a row a warp (16 query heads folded, 8 entries of 16 shares:
  // 2 parts a row, blocks of 8 rows).
  const auto sixteen =
      kernels(attention(in({1, 8, 16, 1, 128}), in({1, 8, 1, 16384, 128})), Target{9, 0, true});
  EXPECT_TRUE(absl::StrContains(sixteen.at(0).source, "COMBINE_ROWS = 8;"));
  EXPECT_EQ(sixteen[0].launches.at(1).grid[0], 8 * 2);
  // TESSEL_SPLIT_MERGE forces either way.
  setenv("TESSEL_SPLIT_MERGE", "launch", 1);
  EXPECT_EQ(kernels(eight, Target{9, 0, true}).at(0).launches.size(), 2u);
  setenv("TESSEL_SPLIT_MERGE", "last", 1);
  EXPECT_EQ(kernels(decode, Target{9, 0, true}).at(0).launches.size(), 1u);
  unsetenv("TESSEL_SPLIT_MERGE");
  const auto ampere = kernels(decode, Target{8, 0, false});
  ASSERT_EQ(ampere.size(), 1u);
  EXPECT_TRUE(absl::StrContains(ampere[0].source, "SQ = 4, SK = 16384, BATCH = 2, SPLITS = 1"));
  // Full query tiles, or q broadcast too: nothing folds.
  const Tensor prefill = attention(in({1, 2, 4, 512, 128}), in({1, 2, 1, 512, 128}));
  const std::string prefill_source = kernels(prefill, Target{9, 0, true}).at(0).source;
  EXPECT_TRUE(absl::StrContains(prefill_source, "SQ = 512, SK = 512, BATCH = 8, SPLITS = 1"));
  // Key tiles of 176 without masks or a split; 128 for the shares of a split.
  EXPECT_TRUE(absl::StrContains(prefill_source, "BK = 176,"));
  EXPECT_TRUE(absl::StrContains(hopper[0].source, "BK = 128,"));
  // Head dimension 64: 192 query rows a tile, three consumer warpgroups and the producer's.
  const Tensor narrow = attention(in({1, 2, 1, 512, 64}), in({1, 2, 1, 512, 64}));
  const auto narrow_kernels = kernels(narrow, Target{9, 0, true});
  EXPECT_TRUE(absl::StrContains(narrow_kernels.at(0).source, "BQ = 192, BK = 128,"));
  EXPECT_EQ(narrow_kernels[0].launches.at(0).block, 512);
  EXPECT_EQ(narrow_kernels[0].launches[0].grid[0], 3 * 2);  // ceil(512 / 192) x 2 entries
  // Work tiles of one cost: a fixed share a block, no ticket.
  EXPECT_TRUE(absl::StrContains(prefill_source, "TICKETS = false;"));
  const Tensor causal_scores = masked_fill(matmul(in({8, 512, 128}), transpose(in({8, 512, 128}))),
                                           triu(ones({512, 512}, DType::kBool), 1), -INFINITY);
  const Tensor causal = matmul(softmax(causal_scores, -1), in({8, 512, 128}));
  const auto causal_kernels = kernels(causal, Target{9, 0, true});
  EXPECT_TRUE(absl::StrContains(causal_kernels.at(0).source, "BK = 128, GROUP = 8;"));
  // Under the mask, work tiles by ticket, longest first across the 8 entries (their keys and
  // values take 2 MB): one launch, the counter counting over its tag (no launch zeroes it).
  EXPECT_TRUE(absl::StrContains(causal_kernels[0].source, "TICKETS = true;"));
  ASSERT_EQ(causal_kernels[0].launches.size(), 1u);
  EXPECT_EQ(causal_kernels[0].workspace_bytes, 8);
  // One query tile an entry: the mask leaves every work tile the same keys, so no tickets.
  const Tensor short_scores = masked_fill(matmul(in({8, 40, 128}), transpose(in({8, 40, 128}))),
                                          triu(ones({40, 40}, DType::kBool), 1), -INFINITY);
  const Tensor short_causal = matmul(softmax(short_scores, -1), in({8, 40, 128}));
  const auto short_kernels = kernels(short_causal, Target{9, 0, true});
  EXPECT_TRUE(absl::StrContains(short_kernels.at(0).source, "TICKETS = false;"));
  EXPECT_EQ(short_kernels[0].launches.size(), 1u);
  const Tensor shared_q = attention(in({1, 2, 1, 1, 128}), in({1, 2, 3, 700, 128}));
  EXPECT_TRUE(absl::StrContains(kernels(shared_q, Target{9, 0, true}).at(0).source,
                                "SQ = 1, SK = 700, BATCH = 6"));
}

// Head dimension 256: wgmma on key tiles of 80 on sm_90a (O holds 128 registers a thread),
// mma.sync on sm_80; explain() names the tiles.
TEST(AttentionScheduleTest, HeadDimension256TakesKeyTilesOf80) {
  auto in = [](Shape s) { return Tensor(MakeInputNode(DType::kBF16, Device::kCPU, s, nullptr)); };
  const Tensor o =
      matmul(softmax(matmul(in({2, 4, 500, 256}), transpose(in({2, 4, 700, 256}))) * 0.0625, -1),
             in({2, 4, 700, 256}));
  const auto hopper = codegen::PlanAndGenerate({&o.node()}, Target{9, 0, true}).kernels;
  ASSERT_EQ(hopper.size(), 1u);
  EXPECT_TRUE(absl::StrContains(hopper[0].source, "tessel_attention_sm90<"));
  EXPECT_TRUE(absl::StrContains(hopper[0].source, "BQ = 128, BK = 80,"));
  // 4 query tiles x 8 entries leave most SMs idle: the keys split too.
  EXPECT_EQ(hopper[0].schedule,
            "wgmma, tiles of 128 queries x 80 keys, keys split 2 ways and combined by blocks of "
            "16 rows");
  const auto ampere = codegen::PlanAndGenerate({&o.node()}, Target{8, 0, false}).kernels;
  ASSERT_EQ(ampere.size(), 1u);
  EXPECT_TRUE(absl::StrContains(ampere[0].source, "tessel_attention_sm80<"));
  // Heads of 160 columns, padded to 256, stay on mma.sync on sm_90a (a K/V chunk past the
  // row's end); 200 columns take wgmma.
  for (const auto& [cols, mainloop] : std::vector<std::pair<int64_t, const char*>>{
           {160, "tessel_attention_sm80<"}, {200, "tessel_attention_sm90<"}}) {
    const Tensor narrow = matmul(
        softmax(matmul(in({2, 4, 500, cols}), transpose(in({2, 4, 700, cols}))) * 0.0625, -1),
        in({2, 4, 700, cols}));
    const auto ks = codegen::PlanAndGenerate({&narrow.node()}, Target{9, 0, true}).kernels;
    ASSERT_EQ(ks.size(), 1u);
    EXPECT_TRUE(absl::StrContains(ks[0].source, mainloop)) << cols;
  }
}

}  // namespace
}  // namespace tessel
