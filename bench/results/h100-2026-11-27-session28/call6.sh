#!/usr/bin/env bash
# Session 28 call 6 (e75dbb2 against main before it, 8ebfd83, alternating): the bf16 GEMM rows
# and TF32; then the rest of gemm_bench at e75dbb2 (unaligned, f32, batched); fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
G='BM_Cublas/(4096/4096/4096|4096/14336/4096)/0/|BM_Tessel/(4096/4096/4096|4096/14336/4096)/[02]/|BM_F32/4096/4096/4096/[02]/'
for r in 1 2; do
  timeout 45 ./dist/gemm_bench_main --benchmark_filter="$G" > $L/ab_main_$r.log 2>&1; save
  timeout 45 ./dist/gemm_bench --benchmark_filter="$G" > $L/ab_new_$r.log 2>&1; save
done
timeout 110 ./dist/gemm_bench --benchmark_filter='BM_Cublas/4096/4096/4096/0/|BM_Tessel/409[67]/409[56]/409[56]/0/|BM_F32/|BM_Batched/' > $L/gemm_rest.log 2>&1; save
timeout 100 ./dist/fuzz diff --first=70000000 --count=60000 --jobs=16 --timeout=300 --time_limit=80 > $L/fuzz.log 2>&1; save
