#!/usr/bin/env bash
# Session 42 call 6: tile rows for a bucket's fewest rows, columns for its most: loop_test, MLP block A/B.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
TESSEL_CACHE_DIR=/tmp/tl timeout 80 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; tail -1 $OUT/logs/loop_test.txt
save
for v in A B; do
  bin=./dist/loop_bench; [ $v = A ] && bin=./dist/ab/A/loop_bench
  TESSEL_CACHE_DIR=/tmp/l$v timeout 60 $bin --benchmark_filter='BM_MlpBlockAtBatch/(64|200|512)/1' 2>&1 | grep -E "^BM_" | sed "s/^/$v /"
  save
done > $OUT/logs/mlp.txt 2>&1; cut -c1-120 $OUT/logs/mlp.txt
save
