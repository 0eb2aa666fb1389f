#!/usr/bin/env bash
# Session 38 call 3 at f75cfa4 (every dynamic-shared launch reserves its bytes): gpu_test (with
# a 48 KB tile beside static shared memory), fuzz_regression_test, fuzz diff with tiles at any
# size and plain, then the normalizations' gpu_bench against 0e9b8a3 (dist/main), alternating.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
timeout 140 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
timeout 110 ./dist/fuzz_regression_test > $L/fuzz_regression_test.log 2>&1; save
timeout 75 ./dist/fuzz diff --small_tiles --first=76200000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $L/fuzz_small_tiles.log 2>&1; save
timeout 75 ./dist/fuzz diff --first=76300000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $L/fuzz.log 2>&1; save
F='BM_Copy|BM_SoftmaxAxis|BM_LongSoftmax|BM_LayerNorm/1|BM_Softmax/bf16/1|BM_Softmax/f32/1'
for which in main change main change; do
  bin=./dist/gpu_bench; [ $which = main ] && bin=./dist/main/gpu_bench
  timeout 35 $bin --benchmark_filter="$F" >> $L/bench_${which}.log 2>&1; save
done
tail -3 $L/gpu_test.log; tail -3 $L/fuzz_regression_test.log; tail -2 $L/fuzz_small_tiles.log; tail -2 $L/fuzz.log
for f in $L/bench_*; do echo "== $f"; grep -E "^BM_" $f | awk '{print $1, $2, $(NF)}'; done
