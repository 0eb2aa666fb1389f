#!/usr/bin/env bash
# Session 30 call 5: the split last cluster barrier (tessel_cluster_arrive after the last
# cluster reduction, tessel_cluster_wait at the end): GPU tests of the cluster kernels,
# racecheck and synccheck over them, gpu_bench's column and long-row softmax against main's
# binary (alternating), the fuzzer's diff mode.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
F='*Column*:*ClusterRows*:*Normaliz*:*OnlineSums*:*ReductionsOverEveryAxis*'
timeout 100 ./dist/gpu_test --gtest_filter="$F" > $L/gpu_test.log 2>&1; save
for tool in racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool ./dist/gpu_test --gtest_filter='*ColumnNormalizations*:*ClusterRows*' > $L/$tool.log 2>&1; save
done
B='BM_Copy|BM_SoftmaxAxis/4/|BM_LongSoftmax/1/'
for r in 1 2; do
  timeout 40 ./dist/main/gpu_bench --benchmark_filter="$B" > $L/bench_main_$r.log 2>&1; save
  timeout 40 ./dist/gpu_bench --benchmark_filter="$B" > $L/bench_new_$r.log 2>&1; save
done
timeout 110 ./dist/fuzz diff --first=72000000 --count=60000 --jobs=16 --timeout=300 --time_limit=75 > $L/fuzz_diff.log 2>&1; save
