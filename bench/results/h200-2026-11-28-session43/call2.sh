#!/usr/bin/env bash
# Session 43 call 2 (c236a8e): gemm_test (did not run in session 42).
cd "$(dirname "$0")/.."
export TESSEL_CACHE_DIR=/tmp/tg LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
(while sleep 60; do save; done) &
timeout 540 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; echo rc=$?; grep -E "^\[  (PASSED|FAILED)|FAILED" $OUT/logs/gemm_test.txt | tail; grep -E "OK \]" $OUT/logs/gemm_test.txt | awk '{print $NF, $(NF-2)}' | sort -t'(' -k2 -n | tail -3
save
