#!/usr/bin/env bash
# Session 44 call 3: swapped tiles (rows in wgmma's N) up to 128 rows, A's box only m's rows
# rounded to 8 (B, experiment) against A = 5425aa7. Each size on its own kernel; then B's gemm_test.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
F='BM_ColdWeights/(1|16|32|48|64|65|100|127)/4096/4096/|BM_ColdWeights/(100|127)/(14336|32000)/4096/'
G='BM_CopyBandwidth|BM_(Qkv|SwiGlu)/(64|100)/|BM_Experts/0/'
for v in A B; do
  bin=./dist; [ $v = A ] && bin=./dist/ab/A
  TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/c$v timeout 100 $bin/gemm_bench --benchmark_filter="$F" > $OUT/logs/cold_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/cold_$v.txt | sed "s/min_time:0.300\/manual_time//;s/^/$v /" | tr -s " " | cut -c1-150
  TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/c$v timeout 80 $bin/gemm_group_bench --benchmark_filter="$G" > $OUT/logs/group_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/group_$v.txt | sed "s/min_time:0.300\/manual_time//;s/^/$v /" | tr -s " " | cut -c1-200
  save
done
TESSEL_CACHE_DIR=/tmp/tg timeout 170 ./dist/gemm_test > $OUT/logs/gemm_test_B.txt 2>&1; echo gemm rc=$?; grep -E "FAILED|^\[  PASSED" $OUT/logs/gemm_test_B.txt | head
save
