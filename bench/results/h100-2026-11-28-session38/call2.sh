#!/usr/bin/env bash
# Session 38 call 2 at e324878 (every dynamic-shared launch reserves its bytes): gpu_test,
# fuzz_regression_test (the new tile_shared_not_reserved), fuzz diff --small_tiles again, and
# the normalizations' gpu_bench against 0e9b8a3 (dist/main), alternating, two rounds.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
timeout 150 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
timeout 90 ./dist/fuzz_regression_test > $L/fuzz_regression_test.log 2>&1; save
F='BM_Copy|BM_Softmax|BM_LayerNorm|BM_LongSoftmax|BM_CrossEntropy|BM_ReduceAxis|BM_ThreeReductions|BM_TopK'
for round in 1 2; do
  for which in main change; do
    bin=./dist/gpu_bench; [ $which = main ] && bin=./dist/main/gpu_bench
    timeout 90 $bin --benchmark_filter="$F" > $L/bench_${which}_$round.log 2>&1; save
  done
done
timeout 100 ./dist/fuzz diff --small_tiles --first=76200000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $L/fuzz_small_tiles.log 2>&1; save
tail -3 $L/gpu_test.log; tail -3 $L/fuzz_regression_test.log; tail -2 $L/fuzz_small_tiles.log
for f in $L/bench_*; do echo "== $f"; grep -E "^BM_" $f | awk '{print $1, $(NF)}' | head -40; done
