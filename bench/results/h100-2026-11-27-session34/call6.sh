#!/usr/bin/env bash
# Session 34 call 6: BM_Transpose/10 (bf16 {3, 2, 1, 0}, cut off in call 5) HEAD 1312cd2
# against main 6c0204e, alternating; fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
F='BM_Copy|BM_Transpose/(5|10)/'
for i in 1 2; do
  timeout 50 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/main_$i.log 2>&1; save
  timeout 50 ./dist/gpu_bench --benchmark_filter="$F" > $L/new_$i.log 2>&1; save
done
timeout 150 ./dist/fuzz diff --first=74200000 --count=60000 --jobs=16 --timeout=300 --time_limit=130 > $L/fuzz_diff.log 2>&1; save
