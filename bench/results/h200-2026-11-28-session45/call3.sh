#!/usr/bin/env bash
# Session 45 call 3: A = the early trigger in every persistent grid (HEAD), B = the trigger
# only where the walk has more units than blocks (GEMM and attention): few-row GEMMs, the
# decode attention, the MLP block chain; then gemm_test and attention_test at B.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
G='BM_(CopyBandwidth|Qkv/(64|16)/|SwiGlu/(64|16)/)'
D='BM_Attention/(16/32/8/1/8192|1/32/8/1/16384|1/32/8/1/65536|4/32/8/1/16384|1/32/8/1/4096)/'
for r in 1 2; do for v in A B; do
  bin=./dist; [ $v = A ] && bin=./dist/ab/A
  TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/g$v timeout 50 $bin/gemm_group_bench --benchmark_filter="$G" > $OUT/logs/group_${v}$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/group_${v}$r.txt | sed "s/min_time:0.300\/manual_time//;s/^/$v /" | tr -s " " | cut -c1-170
  save
done; done
for v in A B; do
  bin=./dist; [ $v = A ] && bin=./dist/ab/A
  TESSEL_CACHE_DIR=/tmp/a$v timeout 45 $bin/attention_bench --benchmark_filter="$D" > $OUT/logs/attn_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/attn_$v.txt | sed "s/^/$v /" | tr -s " " | cut -c1-170
  TESSEL_CACHE_DIR=/tmp/l$v timeout 40 $bin/loop_bench --benchmark_filter='BM_MlpBlockAtBatch/(64|512)/' > $OUT/logs/loop_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/loop_$v.txt | sed "s/^/$v /" | tr -s " " | cut -c1-150
  TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/c$v timeout 30 $bin/gemm_bench --benchmark_filter='BM_ColdWeights/(16|64)/4096/4096/' > $OUT/logs/cold_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/cold_$v.txt | sed "s/min_time:0.300\/manual_time//;s/^/$v /" | tr -s " " | cut -c1-150
  save
done
TESSEL_CACHE_DIR=/tmp/tg timeout 130 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; echo gemm rc=$?; grep -E "FAILED|^\[  PASSED" $OUT/logs/gemm_test.txt | head
save
TESSEL_CACHE_DIR=/tmp/ta timeout 90 ./dist/attention_test > $OUT/logs/attention_test.txt 2>&1; echo attn rc=$?; grep -E "FAILED|^\[  PASSED" $OUT/logs/attention_test.txt | head
save
