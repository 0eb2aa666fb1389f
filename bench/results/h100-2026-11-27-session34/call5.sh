#!/usr/bin/env bash
# Session 34 call 5: HEAD (column reductions a pair of columns a lane up to 4 bytes; 2-byte
# transposes tiled 64 along axes that long, 64 input rows only within 2 MB) against main
# 6c0204e (dist/main), alternating; gpu_test in full; memcheck/racecheck; fuzz diff.
set -u
START=$SECONDS
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt 2>&1
F='BM_Copy|BM_ReduceAxis|BM_Transpose/(6|7|8|9|10)/'
for i in 1 2; do
  timeout 110 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/main_$i.log 2>&1; save
  timeout 110 ./dist/gpu_bench --benchmark_filter="$F" > $L/new_$i.log 2>&1; save
done
timeout 120 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
CS=/usr/local/cuda/bin/compute-sanitizer
timeout 40 $CS --tool memcheck ./dist/gpu_test --gtest_filter='*ColumnReductions*:*Transposes*' > $L/memcheck.log 2>&1; save
timeout 40 $CS --tool racecheck ./dist/gpu_test --gtest_filter='*ColumnReductions*:*Transposes*' > $L/racecheck.log 2>&1; save
LEFT=$((570 - (SECONDS - START)))
if [ $LEFT -gt 40 ]; then
  timeout $LEFT ./dist/fuzz diff --first=74200000 --count=60000 --jobs=16 --timeout=300 --time_limit=$((LEFT - 15)) > $L/fuzz_diff.log 2>&1; save
fi
echo "elapsed $((SECONDS - START))" > $L/elapsed.txt; save
