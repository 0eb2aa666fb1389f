#!/usr/bin/env bash
# Session 30 call 14: short columns in blocks of 16 lanes a thread (columns of 256: 512
# threads x 16 instead of 1024 x 8; call 13's lab): the column GPU tests, compute-sanitizer
# over ColumnNormalizations, softmax over the leading and middle axes of [256, 512, 512]
# against 4190ea5's binary (alternating), the fuzzer's diff mode.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call14.tgz -C $OUT logs; }
F='*Column*:*Normaliz*:*ReductionsOverEveryAxis*'
timeout 80 ./dist/gpu_test --gtest_filter="$F" > $L/gpu_test.log 2>&1; save
timeout 60 compute-sanitizer --tool racecheck ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/racecheck.log 2>&1; save
B='BM_Copy|BM_SoftmaxAxis/(1|2)/'
for r in 1 2; do
  timeout 35 ./dist/main/gpu_bench --benchmark_filter="$B" > $L/bench_4190ea5_$r.log 2>&1; save
  timeout 35 ./dist/gpu_bench --benchmark_filter="$B" > $L/bench_new_$r.log 2>&1; save
done
timeout 60 ./dist/fuzz diff --first=72500000 --count=60000 --jobs=16 --timeout=300 --time_limit=45 > $L/fuzz_diff.log 2>&1; save
