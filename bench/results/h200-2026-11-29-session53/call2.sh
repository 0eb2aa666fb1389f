#!/usr/bin/env bash
# Session 53 call 2: the whole SwiGLU MLP's down projection. (1) at 1024 rows, 128 x 256 tiles
# (128 tiles, one round) where at least 15/16 of the SMs get one (dist/v1) against 128 x 128
# (256 tiles, two rounds; dist/), alternating; cuBLASLt on 1024 x 4096 x 11008. (2) at 64 rows
# (64 tiles of 64 x 64, K in 2 slices): cold against cuBLASLt, and repro variants (stages,
# 128-wide tiles in 4 slices), B (90 MB) larger than L2.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
(cd dist/mrlab && for v in base s6 s12 s16 bn128_k4; do nvcc -O3 --fmad=false -gencode arch=compute_90a,code=sm_90a -diag-suppress 177,550 $v.cu -o $v -lcuda > $v.log 2>&1 & done; wait)
for r in 1 2; do
  for v in new v1; do
    d=./dist; [ $v = v1 ] && d=./dist/v1
    timeout 40 $d/gemm_bench --benchmark_filter='BM_(Cublas|Tessel)/1024/4096/11008/0' > $OUT/logs/g_${v}$r.txt 2>&1
    echo "gemm $v$r: $(grep -hE '^BM_' $OUT/logs/g_${v}$r.txt | grep -oE '^BM_[A-Za-z]+|TFLOP/s=[0-9.]+|%cublas=[0-9.]+' | tr '\n' ' ')"
    TESSEL_DYNAMIC=0 timeout 40 $d/gemm_group_bench --benchmark_filter="BM_SwiGluMlp/1024/" > $OUT/logs/mlp_${v}$r.txt 2>&1
    echo "mlp1024 $v$r: $(grep -hE '^BM_' $OUT/logs/mlp_${v}$r.txt | grep -oE 'ms=[0-9.]+|x_baseline=[0-9.]+' | tr '\n' ' ')"
    save
  done
done
timeout 60 ./dist/gemm_bench --benchmark_filter='BM_ColdWeights/64/4096/11008/' > $OUT/logs/cold64.txt 2>&1
grep -hE '^BM_' $OUT/logs/cold64.txt
for r in 1 2; do
  for v in base s6 s12 s16 bn128_k4; do echo "lab $v$r: $(timeout 20 ./dist/mrlab/$v 2>&1 | tr '\n' ' ')"; done
done
save
for r in 1 2; do
  for v in new v1; do
    d=./dist; [ $v = v1 ] && d=./dist/v1
    TESSEL_DYNAMIC=0 timeout 40 $d/gemm_group_bench --benchmark_filter="BM_SwiGluMlp/64/" > $OUT/logs/mlp64_${v}$r.txt 2>&1
    echo "mlp64 $v$r: $(grep -hE '^BM_' $OUT/logs/mlp64_${v}$r.txt | grep -oE 'ms=[0-9.]+|x_baseline=[0-9.]+' | tr '\n' ' ')"
  done
done
save
