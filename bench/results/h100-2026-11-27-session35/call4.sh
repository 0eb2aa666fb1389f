#!/usr/bin/env bash
# Session 35 call 4: gpu_test (32-part column cases); bf16 short columns 64 a block
# (TESSEL_LAB_WIDE16) and 16 parts read back by lanes (TESSEL_LAB_MINSLOTS=16) against the
# committed choice, alternating; memcheck/racecheck on ColumnNormalizations; fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
timeout 100 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
F='BM_Copy|BM_SoftmaxAxis/(1|5|6)/'
for i in 1 2; do
  timeout 45 ./dist/gpu_bench --benchmark_filter="$F" > $L/base_$i.log 2>&1; save
  TESSEL_LAB_WIDE16=1 timeout 45 ./dist/gpu_bench --benchmark_filter="$F" > $L/wide_$i.log 2>&1; save
  TESSEL_LAB_WIDE16=1 TESSEL_LAB_MINSLOTS=16 timeout 45 ./dist/gpu_bench --benchmark_filter="$F" > $L/wide_lanes_$i.log 2>&1; save
done
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/$tool.log 2>&1; save
done
timeout 75 ./dist/fuzz diff --first=75200000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $L/fuzz_diff.log 2>&1; save
