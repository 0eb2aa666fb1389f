#!/usr/bin/env bash
# Session 35 call 2: norm-pairs (67b85c4) A/B against main 92ce88f on BM_SoftmaxAxis/5-7,
# alternating; Nsight Compute on BM_SoftmaxAxis/7 (long bf16 columns) and /4 (f32).
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
F='BM_Copy|BM_SoftmaxAxis/(5|6|7)/'
for i in 1 2; do
  timeout 45 ./dist/gpu_bench --benchmark_filter="$F" > $L/main_$i.log 2>&1; save
  timeout 45 ./dist/np/gpu_bench --benchmark_filter="$F" > $L/np_$i.log 2>&1; save
done
for w in 7 4; do
timeout 100 ncu --clock-control none --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section Occupancy --section LaunchStats ./dist/gpu_bench \
    --benchmark_filter="BM_SoftmaxAxis/$w/" --benchmark_min_time=0.01 > $L/ncu_$w.txt 2>&1; save
done
