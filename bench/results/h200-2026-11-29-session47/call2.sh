#!/usr/bin/env bash
# Session 47 call 2: the GEMM walk's bands (GROUP_M 2..32) on q/k/v and SwiGLU at M = 8192
# (bench/labs/gemm_walk_lab.py, 500 launches each, two rounds); gemm_group_bench q/k/v with
# tessel's one GEMM on the concatenated weights (who 3), SwiGLU at 1024 / 8192; gemm_bench
# 8192^3 and 8192 x 11008 x 4096 against cuBLASLt.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
for r in 1 2; do for e in qkv_8192 swiglu_8192; do for v in plain g2 g4 g8 g16 g32; do
  echo "$e $v $(timeout 20 ./dist/lab/$e/$v 2>&1 | head -1)"
done; done; done | tee $OUT/logs/lab.txt
save
for r in 1 2; do
  TESSEL_CACHE_DIR=/tmp/tc timeout 60 ./dist/gemm_group_bench --benchmark_filter='BM_(CopyBandwidth|Qkv/(1024|8192)/|SwiGlu/(1024|8192)/)' > $OUT/logs/group$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/group$r.txt | sed "s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,6-
  save
  TESSEL_CACHE_DIR=/tmp/tc timeout 40 ./dist/gemm_bench --benchmark_filter='BM_(Cublas|Tessel)/(8192/8192/8192|8192/11008/4096)/0/' > $OUT/logs/gemm$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/gemm$r.txt | sed "s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,6-
  save
done
