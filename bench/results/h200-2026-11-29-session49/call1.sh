#!/usr/bin/env bash
# Session 49 call 1: the combine launch merged online (bench/labs/combine_online.patch, N)
# against the committed combine (B = dist/): the combine lab (both must print "all right"),
# attention_test of each, attention_bench multi-query / one-head rows and the 8-head row with
# the combine launch forced, B/N alternating two rounds, sdpa in the same run, Nsight
# Compute's per-kernel times of multi-query decode; rank1_tma_lab; gemm_bench's many-round
# rows at 781625c (O, the early trigger on every walk past one round) against main (B).
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for v in o n; do timeout 60 ./dist/lab/combine/$v > $OUT/logs/combine_$v.txt 2>&1; echo "combine $v rc=$?"; tail -4 $OUT/logs/combine_$v.txt; done; save
for v in B N; do
  bin=./dist; [ $v == N ] && bin=./dist/ab/N
  s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 80 $bin/attention_test > $OUT/logs/attention_test_$v.txt 2>&1; echo "attention_test $v rc=$? $(( $(date +%s) - s )) s"
  grep -E "FAILED|^\[  PASSED|Failure" $OUT/logs/attention_test_$v.txt | head -8; save
done
A='BM_Attention/(1/32/1/1/16384|1/32/1/1/131072|16/32/1/1/8192|1/1/1/1/65536|1/32/8/1/16384)/'
for r in 1 2; do for v in B N; do
  bin=./dist; [ $v == N ] && bin=./dist/ab/N
  TESSEL_CACHE_DIR=/tmp/tc timeout 50 $bin/attention_bench --benchmark_filter="$A" > $OUT/logs/attn_$v$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/attn_$v$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7,8
  TESSEL_SPLIT_MERGE=launch TESSEL_CACHE_DIR=/tmp/tc timeout 30 $bin/attention_bench --benchmark_filter='BM_Attention/1/64/8/1/16384/' > $OUT/logs/attnL_$v$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/attnL_$v$r.txt | sed "s/^/${v}launch /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7,8
  save
done; done
timeout 60 python3 dist/sdpa_baseline.py > $OUT/logs/sdpa.txt 2>&1; echo "sdpa rc=$?"; grep -E "/1/(16384|131072|8192|65536)/" $OUT/logs/sdpa.txt | tr -s " "; save
for v in B N; do
  bin=./dist; [ $v == N ] && bin=./dist/ab/N
  for row in 1/32/1/1/16384 1/32/1/1/131072; do
    TESSEL_CACHE_DIR=/tmp/tc timeout 40 ncu --clock-control none --launch-skip 6 --launch-count 4 --metrics gpu__time_duration.sum $bin/attention_bench --benchmark_filter="BM_Attention/$row/" --benchmark_min_time=0.01 > $OUT/logs/ncu_$v${row//\//_}.txt 2>&1
    echo "ncu $v $row"; grep -E "^  [A-Za-z_].*\(|gpu__time_duration" $OUT/logs/ncu_$v${row//\//_}.txt | cut -c1-90 | tr -s " "
  done
  save
done
timeout 40 ./dist/lab/rank1_tma_lab > $OUT/logs/rank1.txt 2>&1; echo "rank1 rc=$?"; tail -20 $OUT/logs/rank1.txt; save
G='(BM_Cublas|BM_Tessel)/(8192/8192/8192|4096/4096/4096|8192/11008/4096|4096/14336/4096|1536/4096/4096|2560/4096/4096)/'
for v in O B; do
  bin=./dist; [ $v == O ] && bin=./dist/ab/O
  TESSEL_CACHE_DIR=/tmp/tc timeout 60 $bin/gemm_bench --benchmark_filter="$G" > $OUT/logs/gemm_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/gemm_$v.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7-9
  save
done
