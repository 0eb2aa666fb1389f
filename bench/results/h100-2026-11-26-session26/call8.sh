#!/usr/bin/env bash
# Session 26 call 8 (the commit): K slices not for swapped tiles mostly past the last row:
# the slices' tests, decode rows new vs previous binary (each row its own process), fuzz.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call8.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
timeout 100 ./dist/gemm_test --gtest_filter='*KSlice*:*FewRows*' > $L/gemm_test.log 2>&1; tail -1 $L/gemm_test.log; save
timeout 40 ./dist/loop_test --gtest_filter='*KSlice*' > $L/loop_test.log 2>&1; tail -1 $L/loop_test.log; save
for b in gemm_bench prev_gemm_bench gemm_bench prev_gemm_bench; do
  for row in 1/4096/4096 16/4096/4096 32/4096/4096; do
    timeout 20 ./dist/$b --benchmark_filter="BM_(Cublas|Tessel)/$row/0" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_" | sed "s/^/$b /" >> $L/gemm.log
  done
done; save
timeout 60 ./dist/fuzz diff --first=65000000 --count=60000 --jobs=16 --timeout=300 --time_limit=45 > $L/fuzz.log 2>&1; tail -1 $L/fuzz.log; save
awk '{for(i=1;i<=NF;i++) if ($i ~ /^TFLOP|^%cublas/) printf "%s ", $i; print $1, $2}' $L/gemm.log
