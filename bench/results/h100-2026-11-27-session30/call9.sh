#!/usr/bin/env bash
# Session 30 call 9: shared lanes as 32 in registers + 32 staged (9109400): the column and
# cluster GPU tests, compute-sanitizer over ColumnNormalizations, gpu_bench's long columns
# and rows against ed4df01's binary (alternating, one filter a process), the lab, the
# fuzzer's diff mode.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call9.tgz -C $OUT logs; }
F='*Column*:*ClusterRows*:*Normaliz*:*OnlineSums*:*ReductionsOverEveryAxis*'
timeout 100 ./dist/gpu_test --gtest_filter="$F" > $L/gpu_test.log 2>&1; save
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/$tool.log 2>&1; save
done
B='BM_Copy|BM_SoftmaxAxis/4/|BM_LongSoftmax/1/'
for r in 1 2; do
  timeout 40 ./dist/main/gpu_bench --benchmark_filter="$B" > $L/bench_ed4df01_$r.log 2>&1; save
  timeout 40 ./dist/gpu_bench --benchmark_filter="$B" > $L/bench_new_$r.log 2>&1; save
done
timeout 40 ./dist/lab/column_lab > $L/column_lab.log 2>&1; save
timeout 90 ./dist/fuzz diff --first=72200000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $L/fuzz_diff.log 2>&1; save
