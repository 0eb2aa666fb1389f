#!/usr/bin/env bash
# Session 29 call 2: call 1's A/B again, one row count a process (call 1's 45 s cut the tessel
# rows): SwiGLU M = 1024 and 64, GEMM 1536 / 2560 x 4096 x 4096, 16 x 4096 x 4096 (few-tile
# slices), main's binaries and the branch's alternating.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
for r in 1 2; do
  for m in 1024 64; do
    timeout 35 ./dist/main/gemm_group_bench --benchmark_filter="BM_SwiGlu/$m/" > $L/swiglu${m}_main_$r.log 2>&1; save
    timeout 35 ./dist/gemm_group_bench --benchmark_filter="BM_SwiGlu/$m/" > $L/swiglu${m}_new_$r.log 2>&1; save
  done
  GB='BM_(Cublas|Tessel)/(1536/4096/4096|2560/4096/4096)/0/'
  timeout 35 ./dist/main/gemm_bench --benchmark_filter="$GB" > $L/gemm_main_$r.log 2>&1; save
  timeout 35 ./dist/gemm_bench --benchmark_filter="$GB" > $L/gemm_new_$r.log 2>&1; save
  timeout 20 ./dist/main/gemm_bench --benchmark_filter='BM_Tessel/16/4096/4096/0/' > $L/few_main_$r.log 2>&1; save
  timeout 20 ./dist/gemm_bench --benchmark_filter='BM_Tessel/16/4096/4096/0/' > $L/few_new_$r.log 2>&1; save
done
