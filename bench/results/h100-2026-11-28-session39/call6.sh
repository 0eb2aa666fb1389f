#!/usr/bin/env bash
# Session 39 call 6: normalization terms as ex2 (cff3b20) against main f25919d: gpu_test, the
# softmax-like benchmarks alternated (two rounds, each binary its own kernel cache), fuzz diff.
set -u
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.log 2>&1
F='BM_Copy|BM_Softmax|BM_LongSoftmax|BM_CrossEntropy|BM_LayerNorm'
for r in 1 2; do
  TESSEL_CACHE_DIR=/tmp/tc_main timeout 150 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/bench_main_$r.log 2>&1; save
  TESSEL_CACHE_DIR=/tmp/tc_new timeout 150 ./dist/gpu_bench --benchmark_filter="$F" > $L/bench_new_$r.log 2>&1; save
done
TESSEL_CACHE_DIR=/tmp/tc_new timeout 300 ./dist/gpu_test > $L/gpu_test.log 2>&1; save
TESSEL_CACHE_DIR=/tmp/tc_new timeout 100 ./dist/fuzz diff --first=76500000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $L/fuzz.log 2>&1; save
cat $L/gpu.log; tail -3 $L/gpu_test.log; tail -3 $L/fuzz.log
for f in $L/bench_*; do echo "== $f"; grep -E "^BM_" $f | sed "s/ \+/ /g"; done
