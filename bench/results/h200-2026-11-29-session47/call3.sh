#!/usr/bin/env bash
# Session 47 call 3: bands of 8 or 16 tile rows with and without the early trigger or any
# overlap (bench/labs/gemm_walk_lab.py, q/k/v and SwiGLU at M = 8192, two rounds); then
# through the API, O (f067f72: bands of 8, whole waves for siblings only), B (bands of 16),
# C (B with whole waves for single GEMMs too), alternating, two rounds: gemm_bench against
# cuBLASLt, gemm_group_bench q/k/v and SwiGLU at 1024 / 8192; C with TESSEL_PDL=0.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
for r in 1 2; do for e in qkv_8192 swiglu_8192; do for v in g8 g16 late8 late16 plain8 plain16; do
  echo "$e $v $(timeout 20 ./dist/lab/$e/$v 2>&1 | head -1 | cut -d' ' -f2-3)"
done; done; done | tee $OUT/logs/lab.txt
save
G='BM_(Cublas|Tessel)/(8192/8192/8192|4096/4096/4096|8192/11008/4096|4096/14336/4096|1536/4096/4096|2560/4096/4096)/0/'
Q='BM_(CopyBandwidth|Qkv/(1024|8192)/|SwiGlu/(1024|8192)/)'
for r in 1 2; do for v in O B C; do
  bin=./dist; [ $v != C ] && bin=./dist/ab/$v
  TESSEL_CACHE_DIR=/tmp/tc timeout 60 $bin/gemm_bench --benchmark_filter="$G" > $OUT/logs/gemm_$v$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/gemm_$v$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,7-9
  TESSEL_CACHE_DIR=/tmp/tc timeout 60 $bin/gemm_group_bench --benchmark_filter="$Q" > $OUT/logs/group_$v$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/group_$v$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,7-
  save
done; done
TESSEL_PDL=0 TESSEL_CACHE_DIR=/tmp/tc timeout 60 ./dist/gemm_group_bench --benchmark_filter="$Q" > $OUT/logs/group_Cnopdl.txt 2>&1
grep -E "^BM_" $OUT/logs/group_Cnopdl.txt | sed "s/^/Cnopdl /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,7-
save
