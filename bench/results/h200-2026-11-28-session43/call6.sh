#!/usr/bin/env bash
# Session 43 call 6: A boxes moved in bounds (S); S with 64-row tiles for static rows < 128 (B);
# A = c236a8e. Tests of S, decode GEMMs over 64-128 rows, fuzz diff.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
TESSEL_CACHE_DIR=/tmp/tg timeout 200 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; grep -E "FAILED|^\[  PASSED" $OUT/logs/gemm_test.txt | head
save
TESSEL_CACHE_DIR=/tmp/tl timeout 70 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; grep -E "FAILED|^\[  PASSED" $OUT/logs/loop_test.txt | head
save
F='BM_ColdWeights/(64|65|80|96|100|112|120|127|128)/4096/4096/'
for v in A S B; do
  bin=./dist/gemm_bench; [ $v != S ] && bin=./dist/ab/$v/gemm_bench
  TESSEL_CACHE_DIR=/tmp/d$v timeout 100 $bin --benchmark_filter="$F" 2>&1 | grep -E "^BM_" | sed "s/^/$v dyn /"
  TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/s$v timeout 60 $bin --benchmark_filter="${F}1" 2>&1 | grep -E "^BM_" | sed "s/^/$v static /"
  save
done > $OUT/logs/ab.txt 2>&1; awk '{for(i=1;i<=NF;i++) if($i ~ /weight_GB/) print $1, $2, $3, $4, $i}' $OUT/logs/ab.txt | sed 's/min_time:0.300.manual_time//'
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 110 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; tail -1 $OUT/logs/gpu_test.txt
save
(TESSEL_CACHE_DIR=/tmp/tf timeout 75 ./dist/fuzz diff --first=77700000 --count=60000 --jobs=16 --timeout=300 --time_limit=60 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
