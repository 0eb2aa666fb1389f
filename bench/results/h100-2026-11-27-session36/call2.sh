#!/usr/bin/env bash
# Session 36 call 2: the long-column repros (cluster launch fixed) exact/fma/fast; the permute
# lab with the generated kernel's plain loads and pairs of bf16; gpu_bench copy and the
# {3,2,1,0} permutes, f32 and bf16.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
timeout 150 bash dist/lab/fm2/run.sh 2 > $L/fast_math.log 2>&1; save
timeout 60 ./dist/lab/permute_order_lab > $L/permute_order.log 2>&1; save
for i in 1 2; do
  timeout 60 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_Transpose/(5|9|10)/' > $L/transpose_$i.log 2>&1; save
done
