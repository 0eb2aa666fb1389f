#!/usr/bin/env bash
# Session 36 call 3: the generated bf16 {3,2,1,0} permute as a repro (no PDL, plain launches)
# against the lab's hand-written variants (pairs of bf16 one way, both ways), and gpu_bench's
# figure for the same kernel; the long-column repros with expf -> __expf only
# (dist/lab/fm2/src/*_expf.cu: the repro with `sed 's/\bexpf(/__expf(/g'`).
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
rm -f dist/lab/fm2/src/N_max_sub_exp_sum_512be27a.cu
timeout 150 bash dist/lab/fm2/run.sh 2 > $L/fast_math.log 2>&1; save
timeout 100 bash dist/lab/perm_repro/run.sh 3 > $L/perm_repro.log 2>&1; save
for i in 1 2; do
  timeout 60 ./dist/lab/permute_order_lab > $L/permute_order_$i.log 2>&1; save
  timeout 60 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_Transpose/10/' > $L/transpose_$i.log 2>&1; save
done
