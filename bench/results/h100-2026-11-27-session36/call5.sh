#!/usr/bin/env bash
# Session 36 call 5 (call 4's benchmarks ran out of time after BM_Transpose/3): the permutes
# main / new / new without pairs (TESSEL_LAB_TLANES=0), alternating; f32 with pairs.
# dist/main/gpu_bench: 71eac3b; dist/gpu_bench: the working tree with a TESSEL_LAB_TLANES
# switch in codegen/transpose_codegen.cc (0: one position a thread; f32: pairs for 4-byte
# tiles too), removed before 1531a4d.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
F='BM_Copy|BM_Transpose/([4-9]|10)/'
for i in 1 2; do
  timeout 90 ./dist/main/gpu_bench --benchmark_filter="$F" > $L/main_$i.log 2>&1; save
  timeout 90 ./dist/gpu_bench --benchmark_filter="$F" > $L/new_$i.log 2>&1; save
  TESSEL_LAB_TLANES=0 timeout 90 ./dist/gpu_bench --benchmark_filter="$F" > $L/nolanes_$i.log 2>&1; save
done
TESSEL_LAB_TLANES=f32 timeout 60 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_Transpose/(4|5)/' > $L/f32lanes.log 2>&1; save
