#!/usr/bin/env bash
# Session 55 call 4: Nsight Compute over the long-rows lab's kernels (each launched once):
# where the generated softmax, the trimmed one, the rings and the two passes wait.
cd "$(dirname "$0")/.."
mkdir -p $OUT/logs
LAB_ONCE=1 timeout 200 ncu --clock-control none --kernel-name regex:'N_cast|ring|twophase|trimmed' \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
  --section LaunchStats --section MemoryWorkloadAnalysis ./dist/lab/long_rows_ring_lab > $OUT/logs/ncu.txt 2>&1
echo "ncu rc=$?"; grep -cE "^  [A-Za-z_]+.*\(" $OUT/logs/ncu.txt
tar -czf $OUT/call4.tgz -C $OUT logs
