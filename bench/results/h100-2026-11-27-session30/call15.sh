#!/usr/bin/env bash
# Session 30 call 15: long columns at 128 bytes of each row in clusters of up to 16 blocks
# (non-portable) where parts are even: the column GPU tests, racecheck and synccheck over
# ColumnNormalizations, softmax over columns of 16384 f32 against 47939d0's binary, the same
# with TESSEL_CLUSTERS=8 (64 bytes, portable), the fuzzer's diff mode.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call15.tgz -C $OUT logs; }
F='*Column*:*ClusterRows*:*Normaliz*:*ReductionsOverEveryAxis*'
timeout 80 ./dist/gpu_test --gtest_filter="$F" > $L/gpu_test.log 2>&1; save
for tool in racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/$tool.log 2>&1; save
done
B='BM_Copy|BM_SoftmaxAxis/4/'
timeout 30 ./dist/main/gpu_bench --benchmark_filter="$B" > $L/bench_47939d0.log 2>&1; save
timeout 30 ./dist/gpu_bench --benchmark_filter="$B" > $L/bench_new.log 2>&1; save
TESSEL_CLUSTERS=8 timeout 30 ./dist/gpu_bench --benchmark_filter="$B" > $L/bench_new_clusters8.log 2>&1; save
timeout 30 ./dist/gpu_bench --benchmark_filter="$B" > $L/bench_new_2.log 2>&1; save
timeout 50 ./dist/fuzz diff --first=72600000 --count=60000 --jobs=16 --timeout=300 --time_limit=35 > $L/fuzz_diff.log 2>&1; save
