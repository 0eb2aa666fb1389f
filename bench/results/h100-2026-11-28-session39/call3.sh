#!/usr/bin/env bash
# Session 39 call 3 (again, counters reset a variant): the column softmax lab, groups of 256- and 128-thread blocks.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.log 2>&1
timeout 150 ./dist/lab/column_lab > $L/lab.log 2>&1; save
cat $L/lab.log
