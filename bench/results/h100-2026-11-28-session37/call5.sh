#!/usr/bin/env bash
# Session 37 call 5: bf2ffda (tiles for short 16-bit columns, runs for long columns' shared
# lanes) against main 94a9f8a: gpu_bench BM_SoftmaxAxis alternating (two rounds); gpu_test;
# compute-sanitizer over the column normalizations; fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
F='BM_Copy|BM_SoftmaxAxis/'
for r in 1 2; do
  timeout 90 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/main_$r.log 2>&1; save
  timeout 90 ./dist/gpu_bench --benchmark_filter="$F" > $L/change_$r.log 2>&1; save
done
timeout 150 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/$tool.log 2>&1; save
done
timeout 90 ./dist/fuzz diff --first=75900000 --count=60000 --jobs=16 --timeout=300 --time_limit=75 > $L/fuzz_diff.log 2>&1; save
for f in main_1 change_1 main_2 change_2; do echo "== $f"; grep -E "BM_Copy|SoftmaxAxis" $L/$f.log | awk '{print $1, $(NF-4), $(NF-3)}'; done
tail -3 $L/gpu_test.log; grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $L/memcheck.log $L/racecheck.log; tail -2 $L/fuzz_diff.log
