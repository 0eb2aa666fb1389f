#!/usr/bin/env bash
# Session 50 call 4: a dual GEMM on 64-wide tiles (TESSEL_LAB_DUAL64 in dist/ab's build)
# against main's 128-wide ones: SwiGLU gate and up at M = 1024 (688 tiles of 128: 5.2 waves;
# 1376 of 64: 10.4) and 8192, alternating, two rounds.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
Q='BM_(CopyBandwidth|SwiGlu/(1024|8192)/)'
for r in 1 2; do
  for v in main ab; do
    if [ $v = main ]; then b=./dist/gemm_group_bench; e=""; else b=./dist/ab/gemm_group_bench; e="TESSEL_LAB_DUAL64=1"; fi
    env $e timeout 80 $b --benchmark_filter="$Q" > $OUT/logs/swiglu_$v$r.txt 2>&1
    echo "== $v $r"; grep -E "^BM_" $OUT/logs/swiglu_$v$r.txt | tr -s " " | cut -d" " -f1,2,6-
  done
done
tar -czf $OUT/call4.tgz -C $OUT logs
