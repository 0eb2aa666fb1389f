#!/usr/bin/env bash
# Session 34 call 3 (lab): bf16 permutes under each tile shape (LAB_ALONG x LAB_ACROSS caps,
# a build of 9a6891a with the two caps read from the environment, not committed).
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
F='BM_Copy|BM_Transpose/(6|8|9|10)/'
for i in 1 2; do
  for t in 64x64 64x32 32x64 32x32; do
    LAB_ALONG=${t%x*} LAB_ACROSS=${t#*x} timeout 60 ./dist/gpu_bench_lab --benchmark_filter="$F" > $L/tile_${t}_$i.log 2>&1; save
  done
done
