#!/usr/bin/env bash
# Session 27 call 5 (main at e6ec28d: streamed rows trimmed): every GPU test binary, the
# memory-bound rows against the previous main, fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
for t in gpu_test gemm_test attention_test scan_sort_test loop_test stream_test fuzz_regression_test interop_test; do
  timeout 120 ./dist/$t > $L/$t.log 2>&1; echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED)' $L/$t.log | tr '\n' ' ')"; save
done
F='BM_Copy|BM_PointwiseChain/1|BM_Embedding/1|BM_Argmax/1|BM_CrossEntropy/1|BM_Transpose/1|BM_Cumsum/1'
for r in 1 2; do
  for b in gpu_bench prev_gpu_bench; do
    timeout 100 ./dist/$b --benchmark_filter="$F" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_|rror" | sed "s/^/$b /" >> $L/bench.log
  done
done; save
timeout 130 ./dist/fuzz diff --first=69000000 --count=60000 --jobs=16 --timeout=300 --time_limit=120 > $L/fuzz.log 2>&1; tail -1 $L/fuzz.log; save
awk '{for(i=1;i<=NF;i++) if ($i ~ /^%copy|^GB/) printf "%s ", $i; print $1, $2}' $L/bench.log
