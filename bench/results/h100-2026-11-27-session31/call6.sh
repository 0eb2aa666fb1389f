#!/usr/bin/env bash
# Session 31 call 6: streamed one-hot sums read at the target (ea02792) against a6463ac's
# binary, alternating; the one-hot and streaming GPU tests; fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
timeout 80 ./dist/gpu_test --gtest_filter='*OneHot*:*OnlineSums*:*LongReductions*:*Gather*' > $L/gpu_test.log 2>&1; save
B='BM_Copy|BM_CrossEntropy/(1|2)/'
for i in 1 2; do
  timeout 45 ./dist/main/gpu_bench --benchmark_filter="$B" > $L/ce_main_$i.log 2>&1; save
  timeout 45 ./dist/gpu_bench --benchmark_filter="$B" > $L/ce_new_$i.log 2>&1; save
done
timeout 45 compute-sanitizer --tool memcheck ./dist/gpu_test --gtest_filter='*OneHotSums*' > $L/memcheck.log 2>&1; save
timeout 60 ./dist/fuzz diff --first=73100000 --count=60000 --jobs=16 --timeout=300 --time_limit=55 > $L/fuzz_diff.log 2>&1; save
