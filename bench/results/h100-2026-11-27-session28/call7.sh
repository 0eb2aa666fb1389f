#!/usr/bin/env bash
# Session 28 call 7 (71aa3d5): the GPU tests not run since e75dbb2 (gpu, attention, scan/sort,
# interop, fuzz regressions) and the odd GEMM shapes with TF32.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call7.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
for t in gpu_test:80 attention_test:60 scan_sort_test:30 interop_test:20 fuzz_regression_test:40; do
  timeout ${t#*:} ./dist/${t%:*} > $L/${t%:*}.log 2>&1; save
done
timeout 50 ./dist/gemm_bench --benchmark_filter='BM_Cublas/4096/4096/4096/0/|BM_Tessel/(4096/4096/4096|4097/4096/4096|4096/4095/4096)/0/|BM_F32/(4096|8192)/4096/4096/[02]/' > $L/gemm.log 2>&1; save
