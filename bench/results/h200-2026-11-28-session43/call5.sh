#!/usr/bin/env bash
# Session 43 call 5: decode-shaped GEMMs over 64-128 rows: the static kernels (TESSEL_DYNAMIC=0:
# 128-row tiles from 65 rows), and the bucket kernel without programmatic dependent launch.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
F='BM_ColdWeights/(64|65|80|96|100|112|120|127|128)/4096/4096/1'
TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/g2 timeout 150 ./dist/gemm_bench --benchmark_filter="$F" > $OUT/logs/static.txt 2>&1
grep -E "^BM_" $OUT/logs/static.txt | awk '{print "static", $1, $2, $8}'
save
TESSEL_PDL=0 TESSEL_CACHE_DIR=/tmp/g1 timeout 150 ./dist/gemm_bench --benchmark_filter="$F" > $OUT/logs/nopdl.txt 2>&1
grep -E "^BM_" $OUT/logs/nopdl.txt | awk '{print "dyn-nopdl", $1, $2, $8}'
save
