#!/usr/bin/env bash
# Session 34 call 4: 2-byte transposes keep 64 input rows a tile only within 2 MB (cfd, HEAD)
# against main 6c0204e (dist/main), alternating; lab knobs (a build of HEAD, not committed):
# LAB_WIDE4 (4-byte transposes 64 along x 32 across), LAB_PAIRS4 (f32 column sums a pair of
# columns a lane, 8-byte loads); the transposes' GPU test; fuzz diff.
set -u
START=$SECONDS
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
timeout 60 ./dist/gpu_test --gtest_filter='*Transposes*:*ColumnReductions*' > $L/gpu_test_new.log 2>&1; save
for i in 1 2; do
  timeout 60 ./dist/main/gpu_bench --benchmark_filter='BM_Copy|BM_Transpose/' > $L/main_$i.log 2>&1; save
  timeout 60 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_Transpose/' > $L/new_$i.log 2>&1; save
  LAB_WIDE4=1 timeout 45 ./dist/gpu_bench_lab --benchmark_filter='BM_Copy|BM_Transpose/[1-5]/' > $L/wide4_$i.log 2>&1; save
  timeout 40 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_ReduceAxis/[12]/' > $L/reduce_new_$i.log 2>&1; save
  LAB_PAIRS4=1 timeout 40 ./dist/gpu_bench_lab --benchmark_filter='BM_Copy|BM_ReduceAxis/[12]/' > $L/pairs4_$i.log 2>&1; save
done
LEFT=$((560 - (SECONDS - START)))
if [ $LEFT -gt 40 ]; then
  timeout $LEFT ./dist/fuzz diff --first=74100000 --count=60000 --jobs=16 --timeout=300 --time_limit=$((LEFT - 15)) > $L/fuzz_diff.log 2>&1; save
fi
echo "elapsed $((SECONDS - START))" > $L/elapsed.txt; save
