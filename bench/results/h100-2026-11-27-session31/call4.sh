#!/usr/bin/env bash
# Session 31 call 4: streaming reductions with 4 vectors a thread in flight (was 2) and the
# last step guarded a vector at a time: cross-entropy (where/eq, gather) and the streamed
# rows against ad215ad's binary, alternating; gpu_test; fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
B='BM_Copy|BM_CrossEntropy/(1|2)/'
for i in 1 2; do
  timeout 60 ./dist/main/gpu_bench --benchmark_filter="$B" > $L/ce_main_$i.log 2>&1; save
  timeout 60 ./dist/gpu_bench --benchmark_filter="$B" > $L/ce_new_$i.log 2>&1; save
done
timeout 200 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
timeout 60 compute-sanitizer --tool memcheck ./dist/gpu_test --gtest_filter='*LongReductionsStream*' > $L/memcheck.log 2>&1; save
timeout 100 ./dist/fuzz diff --first=72900000 --count=60000 --jobs=16 --timeout=300 --time_limit=90 > $L/fuzz_diff.log 2>&1; save
