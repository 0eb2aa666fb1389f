#!/usr/bin/env bash
# Session 30 call 6: long columns with shared lanes (first version: 16 lanes in registers +
# 48 staged): the GPU tests of column and cluster kernels, compute-sanitizer over
# ColumnNormalizations, gpu_bench's softmax over each axis against ed4df01's binary
# (alternating; the 40 s cut each process before the long-column row), the fuzzer's diff mode.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
F='*Column*:*ClusterRows*:*Normaliz*:*OnlineSums*:*ReductionsOverEveryAxis*'
timeout 100 ./dist/gpu_test --gtest_filter="$F" > $L/gpu_test.log 2>&1; save
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/$tool.log 2>&1; save
done
B='BM_Copy|BM_SoftmaxAxis/|BM_LongSoftmax/1/'
for r in 1 2; do
  timeout 40 ./dist/main/gpu_bench --benchmark_filter="$B" > $L/bench_ed4df01_$r.log 2>&1; save
  timeout 40 ./dist/gpu_bench --benchmark_filter="$B" > $L/bench_new_$r.log 2>&1; save
done
timeout 100 ./dist/fuzz diff --first=72100000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $L/fuzz_diff.log 2>&1; save
