#!/usr/bin/env bash
# Session 41 call 8 (f3c149b): 64 x 4096 x 4096 (64 tiles, K in 2 slices) with its weight evicted from L2
# before each launch (bench/labs/gemm_stages_lab.py --cold), by stages; `warm` the same kernel
# launched back to back.
cd "$(dirname "$0")/.."
mkdir -p $OUT/logs
for r in 1 2; do for v in base s6 s10 s13 a_once warm; do echo "== $v $(./dist/lab/$v | head -1)"; done; done > $OUT/logs/lab8.txt 2>&1
cat $OUT/logs/lab8.txt
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
save() { tar -czf $OUT/call8.tgz -C $OUT logs; }
save
(timeout 100 ./dist/fuzz diff --first=77200000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 150 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; tail -1 $OUT/logs/gpu_test.txt
save
TESSEL_CACHE_DIR=/tmp/tc3 timeout 100 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; tail -1 $OUT/logs/loop_test.txt
save
