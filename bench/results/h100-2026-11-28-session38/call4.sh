#!/usr/bin/env bash
# Session 38 call 4: the column and long-row normalizations' gpu_bench, f75cfa4 against
# 0e9b8a3 (dist/main), alternating (call 3's 35 s a process reached only the first three).
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
F='BM_Copy|BM_SoftmaxAxis|BM_LongSoftmax|BM_LayerNorm/1'
for which in main change main change; do
  bin=./dist/gpu_bench; [ $which = main ] && bin=./dist/main/gpu_bench
  timeout 70 $bin --benchmark_filter="$F" >> $L/bench_${which}.log 2>&1; save
done
for f in $L/bench_*; do echo "== $f"; grep -E "^BM_" $f | awk '{print $1, $2}' ; grep -h "^BM_" $f | grep -o "%copy=[0-9.]*"; done
