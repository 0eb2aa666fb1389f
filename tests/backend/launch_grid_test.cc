// LaunchGrid: the grid a kernel entry launches with, from its rows argument, its persistent
// cap (blocks per SM, and TESSEL_PERSISTENT_BLOCKS) and the driver's limits. Host logic.
#include <cstdlib>

#include "backend/ready_plan.h"
#include "gtest/gtest.h"

namespace tessel::backend {
namespace {

// Set before any launch asks (the switch is read once): persistent grids at most 5 blocks.
const bool kCapSet = setenv("TESSEL_PERSISTENT_BLOCKS", "5", 1) == 0;

ReadyKernel::Entry EntryOf(int64_t blocks, int persistent_per_sm) {
  ReadyKernel::Entry e{};
  e.grid = {blocks, 1, 1};
  e.block = 128;
  e.name = "k";
  e.persistent_per_sm = persistent_per_sm;
  return e;
}

TEST(LaunchGridTest, PersistentGridsStopAtTheCap) {
  ASSERT_TRUE(kCapSet);
  const ReadyKernel k;
  EXPECT_EQ(LaunchGrid(k, EntryOf(4096, 1), 0, 132)->at(0), 5);     // the cap, below 132 SMs
  EXPECT_EQ(LaunchGrid(k, EntryOf(3, 1), 0, 132)->at(0), 3);        // fewer work tiles: all
  EXPECT_EQ(LaunchGrid(k, EntryOf(4096, 1), 0, 2)->at(0), 2);       // fewer SMs than the cap
  EXPECT_EQ(LaunchGrid(k, EntryOf(4096, 0), 0, 132)->at(0), 4096);  // not persistent
}

TEST(LaunchGridTest, RowsSizeTheGridAndLimitsGiveErrors) {
  const ReadyKernel k;
  ReadyKernel::Entry e = EntryOf(8, 0);
  e.rows_grid = {1, 64, 2};  // ceil(rows / 64) blocks, twice
  EXPECT_EQ(LaunchGrid(k, e, 300, 132)->at(0), 10);
  e.grid = {1, 70000, 1};
  EXPECT_FALSE(LaunchGrid(k, e, 0, 132).ok());
}

// A cluster's blocks all launch or none: a grid of part of a cluster is a planning bug that
// the driver would refuse, reported before the launch.
TEST(LaunchGridTest, GridsAreWholeClusters) {
  const ReadyKernel k;
  ReadyKernel::Entry e = EntryOf(8, 0);
  e.cluster = 4;
  e.rows_grid = {1, 64, 4};  // ceil(rows / 64) clusters of 4
  EXPECT_EQ(LaunchGrid(k, e, 300, 132)->at(0), 20);
  e.rows_grid = {1, 64, 2};
  EXPECT_TRUE(absl::IsInternal(LaunchGrid(k, e, 300, 132).status()));
}

}  // namespace
}  // namespace tessel::backend
