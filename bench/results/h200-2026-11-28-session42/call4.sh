#!/usr/bin/env bash
# Session 42 call 4: GEMM tiles for a bucket's fewest rows (A = 8c990fa, B = new) and tests.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
TESSEL_CACHE_DIR=/tmp/tl timeout 120 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; tail -1 $OUT/logs/loop_test.txt
TESSEL_CACHE_DIR=/tmp/ts timeout 60 ./dist/stream_test > $OUT/logs/stream_test.txt 2>&1; tail -1 $OUT/logs/stream_test.txt
save
for r in 1 2; do
  for v in A B; do
    bin=./dist/gemm_bench; [ $v = A ] && bin=./dist/ab/A/gemm_bench
    TESSEL_CACHE_DIR=/tmp/g$v timeout 150 $bin --benchmark_filter='ColdWeights/.*/4096/4096/' 2>&1 | grep Cold | sed "s/^/$v$r /"
  done
done > $OUT/logs/cold.txt 2>&1; grep -E "/1/min" $OUT/logs/cold.txt | awk '{print $1, $2, $6, $7}'
save
for r in 1 2; do
  for v in A B; do
    bin=./dist/gemm_group_bench; [ $v = A ] && bin=./dist/ab/A/gemm_group_bench
    TESSEL_CACHE_DIR=/tmp/q$v timeout 150 $bin --benchmark_filter='BM_(Qkv|SwiGlu)/(64|1024|16)/' 2>&1 | grep -E "^BM_" | sed "s/^/$v$r /"
  done
done > $OUT/logs/groups.txt 2>&1; grep -E "/16/" $OUT/logs/groups.txt | cut -c1-200
save
for v in A B; do
  bin=./dist/loop_bench; [ $v = A ] && bin=./dist/ab/A/loop_bench
  TESSEL_CACHE_DIR=/tmp/l$v timeout 120 $bin --benchmark_filter='BM_MlpBlockAtBatch' 2>&1 | grep -E "^BM_" | sed "s/^/$v /"
done > $OUT/logs/mlp.txt 2>&1; cat $OUT/logs/mlp.txt | cut -c1-160
save
TESSEL_CACHE_DIR=/tmp/tm timeout 150 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; tail -1 $OUT/logs/gemm_test.txt
save
