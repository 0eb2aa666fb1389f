#!/usr/bin/env bash
# Session 38 call 1: fuzz diff with tiles at any size (never run in diff mode), the staged
# columns lab with persistent blocks and two tiles in flight, and a plain fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.log 2>&1
timeout 100 ./dist/fuzz diff --small_tiles --first=76000000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $L/fuzz_small_tiles.log 2>&1; save
timeout 120 ./dist/lab/staged_columns_lab > $L/lab.log 2>&1; save
timeout 100 ./dist/fuzz diff --first=76100000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $L/fuzz.log 2>&1; save
cat $L/gpu.log; tail -4 $L/fuzz_small_tiles.log; cat $L/lab.log; tail -4 $L/fuzz.log
