#!/usr/bin/env bash
# Session 44 call 4: swapped 128-row tiles at 65-128 rows over many columns, A's box the
# output's rows rounded to 8 (S, the commit's code) against A = 5425aa7: fuzz diff, the
# benchmarks (each size on its own kernel), the GPU tests.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
(while sleep 30; do save; done) &
(TESSEL_CACHE_DIR=/tmp/tf timeout 55 ./dist/fuzz diff --first=77800000 --count=60000 --jobs=16 --timeout=300 --time_limit=42 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
F='BM_ColdWeights/(100|127)/(14336|32000)/4096/|BM_ColdWeights/65/14336/4096/|BM_ColdWeights/100/4096/4096/'
G='BM_(Qkv|SwiGlu)/100/'
for v in A S; do
  bin=./dist; [ $v = A ] && bin=./dist/ab/A
  TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/c$v timeout 45 $bin/gemm_bench --benchmark_filter="$F" > $OUT/logs/cold_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/cold_$v.txt | sed "s/min_time:0.300\/manual_time//;s/^/$v /" | tr -s " " | cut -c1-120
  TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/c$v timeout 35 $bin/gemm_group_bench --benchmark_filter="$G" > $OUT/logs/group_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/group_$v.txt | sed "s/min_time:0.300\/manual_time//;s/^/$v /" | tr -s " " | cut -c1-200
  save
done
TESSEL_CACHE_DIR=/tmp/tc2 timeout 70 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; echo gpu rc=$?; grep -E "FAILED|^\[  PASSED" $OUT/logs/gpu_test.txt | head
save
TESSEL_CACHE_DIR=/tmp/tr timeout 45 ./dist/fuzz_regression_test > $OUT/logs/fuzz_regression_test.txt 2>&1; tail -1 $OUT/logs/fuzz_regression_test.txt
TESSEL_CACHE_DIR=/tmp/tl timeout 20 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; grep -E "FAILED|^\[  PASSED" $OUT/logs/loop_test.txt | head
save
TESSEL_CACHE_DIR=/tmp/tg timeout 130 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; echo gemm rc=$?; grep -E "FAILED|^\[  PASSED" $OUT/logs/gemm_test.txt | head
save
