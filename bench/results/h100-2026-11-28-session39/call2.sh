#!/usr/bin/env bash
# Session 39 call 2: the column softmax lab again (the generated kernel's cluster of 16 allowed).
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.log 2>&1
timeout 150 ./dist/lab/column_lab > $L/lab.log 2>&1; save
cat $L/lab.log
