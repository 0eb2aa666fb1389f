#!/usr/bin/env bash
# Session 42 call 5: the MLP block at batch sizes (A = 8c990fa, B = tiles for a bucket's fewest rows), fuzz diff.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
for v in A B; do
  bin=./dist/loop_bench; [ $v = A ] && bin=./dist/ab/A/loop_bench
  TESSEL_CACHE_DIR=/tmp/l$v timeout 110 $bin --benchmark_filter='BM_MlpBlockAtBatch/(64|200|512|4096)/1' 2>&1 | grep -E "^BM_" | sed "s/^/$v /"
  save
done > $OUT/logs/mlp.txt 2>&1; cut -c1-150 $OUT/logs/mlp.txt
save
(TESSEL_CACHE_DIR=/tmp/tf timeout 80 ./dist/fuzz diff --first=77500000 --count=60000 --jobs=16 --timeout=300 --time_limit=65 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
