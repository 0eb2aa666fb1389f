#!/usr/bin/env bash
# Session 48 call 3: (1) the Hopper GEMM's early trigger only where the walk takes at most two
# rounds (N) against 781625c (B), gemm_group_bench q/k/v and SwiGLU at M = 64, 1024, 8192,
# two rounds alternating; (2) the split decode's shares: a lab build (V) whose share of key
# tiles LAB_SHARE (1, 2, 4 = as committed) with the merge forced either way, on multi-query,
# one head, 8 K/V heads; (3) Nsight Compute's per-kernel durations of the multi-query decode.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
Q3='BM_(CopyBandwidth|Qkv/(64|1024|8192)/|SwiGlu/(64|1024|8192)/)'
for r in 1 2; do for v in B N; do
  bin=./dist; [ $v == B ] && bin=./dist/ab/B
  TESSEL_CACHE_DIR=/tmp/tc timeout 100 $bin/gemm_group_bench --benchmark_filter="$Q3" > $OUT/logs/group_$v$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/group_$v$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,7-
  save
done; done
A3='BM_Attention/(1/32/8/1/16384|1/32/1/1/16384|1/1/1/1/65536)/'
for s in 1 2 4; do for m in launch last; do
  LAB_SHARE=$s TESSEL_SPLIT_MERGE=$m TESSEL_CACHE_DIR=/tmp/tc timeout 60 ./dist/ab/V/attention_bench --benchmark_filter="$A3" > $OUT/logs/attn_s${s}_$m.txt 2>&1
  grep -E "^BM_" $OUT/logs/attn_s${s}_$m.txt | sed "s/^/s$s $m /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1-4,8,9
  save
done; done
for s in 1 4; do
  LAB_SHARE=$s TESSEL_SPLIT_MERGE=launch TESSEL_CACHE_DIR=/tmp/tc timeout 90 ncu --clock-control none --launch-skip 6 --launch-count 4 --metrics gpu__time_duration.sum ./dist/ab/V/attention_bench --benchmark_filter='BM_Attention/1/32/1/1/16384/' --benchmark_min_time=0.01 > $OUT/logs/ncu_s$s.txt 2>&1
  grep -E "^  [A-Za-z_].*\(|gpu__time_duration" $OUT/logs/ncu_s$s.txt | sed "s/^/s$s /" | cut -c1-150
  save
done
