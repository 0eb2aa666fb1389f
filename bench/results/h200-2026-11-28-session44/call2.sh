#!/usr/bin/env bash
# Session 44 call 2: 65-127 rows on wide weights and in the groups, A = 8327219 (128-row tiles
# at 65-127 rows) against S = 5425aa7 (64-row tiles, A's last box moved in bounds). Each size on
# its own kernel (TESSEL_DYNAMIC=0), two rounds.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
F='BM_ColdWeights/(100|127)/(14336|32000)/4096/'
G='BM_CopyBandwidth|BM_Qkv/100/|BM_SwiGlu/100/'
for r in 1 2; do
  for v in A S; do
    bin=./dist; [ $v = A ] && bin=./dist/ab/A
    TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/c$v timeout 100 $bin/gemm_bench --benchmark_filter="$F" > $OUT/logs/cold_${v}_$r.txt 2>&1
    grep -E "^BM_" $OUT/logs/cold_${v}_$r.txt | awk -v v=$v '{print v, $1, $2, $8, $9}'
    TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/c$v timeout 80 $bin/gemm_group_bench --benchmark_filter="$G" > $OUT/logs/group_${v}_$r.txt 2>&1
    grep -E "^BM_" $OUT/logs/group_${v}_$r.txt | awk -v v=$v '{$3="";$4="";$5=""; print v, $0}' | cut -c1-200
    save
  done
done
