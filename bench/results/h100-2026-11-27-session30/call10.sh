#!/usr/bin/env bash
# Session 30 call 10: long rows over a cluster in blocks of 512 threads, two an SM (4-byte
# values): the whole GPU test, compute-sanitizer over ClusterRows, the long-row softmax
# against 9109400's binary (alternating), the fuzzer's diff mode.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call10.tgz -C $OUT logs; }
timeout 240 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool ./dist/gpu_test --gtest_filter='*ClusterRows*' > $L/$tool.log 2>&1; save
done
B='BM_Copy|BM_LongSoftmax/1/'
for r in 1 2; do
  timeout 30 ./dist/main/gpu_bench --benchmark_filter="$B" > $L/bench_9109400_$r.log 2>&1; save
  timeout 30 ./dist/gpu_bench --benchmark_filter="$B" > $L/bench_new_$r.log 2>&1; save
done
timeout 80 ./dist/fuzz diff --first=72300000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $L/fuzz_diff.log 2>&1; save
