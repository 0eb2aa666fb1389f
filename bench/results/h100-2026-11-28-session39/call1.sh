#!/usr/bin/env bash
# Session 39 call 1: how the driver counts static shared memory (for tools/fake_cuda), the
# column softmax lab with groups meeting through global memory, and a plain fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.log 2>&1
timeout 60 ./dist/lab/static_shared_probe > $L/probe.log 2>&1; save
timeout 150 ./dist/lab/column_lab > $L/lab.log 2>&1; save
timeout 100 ./dist/fuzz diff --first=76400000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $L/fuzz.log 2>&1; save
cat $L/gpu.log $L/probe.log $L/lab.log; tail -4 $L/fuzz.log
