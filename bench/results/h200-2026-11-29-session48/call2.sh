#!/usr/bin/env bash
# Session 48 call 2: rows not re-measured since bands of 16 (ae927e4): fused epilogues, f32/TF32,
# shared-weight batch, experts; O (f067f72) against 781625c alternating, one round each
# (same processes as cuBLASLt). Then gemm_walk_lab at M = 1024 and 8192 (g16: as generated,
# late16: no early trigger, g8), two rounds; long_rows_lab; rank1_tma_lab.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
for r in 1 2; do for e in qkv_1024 swiglu_1024 qkv_8192 swiglu_8192; do for v in g16 late16 g8; do
  echo "$e $v $(timeout 20 ./dist/lab/$e/$v 2>&1 | head -1 | cut -d' ' -f2-3)"
done; done; done | tee $OUT/logs/lab.txt
save
for v in base packed w512 base packed w512; do echo "long_rows $v $(timeout 20 ./dist/lab/long_rows/$v 2>&1 | head -2 | tr '\n' ' ')"; done | tee $OUT/logs/long_rows.txt
save
timeout 60 ./dist/lab/rank1_tma_lab > $OUT/logs/rank1.txt 2>&1; echo "rank1 rc=$?"; tail -20 $OUT/logs/rank1.txt
save
G2='BM_(Cublas|Tessel)/(8192/8192/8192|8192/11008/4096|4096/14336/4096)/[0-2]/|BM_CublasThenTesselEpilogue|BM_F32/'
Q2='BM_(CopyBandwidth|Batched/32/256/4096/4096/1/|Experts/)'
for v in O N; do
  bin=./dist; [ $v == O ] && bin=./dist/ab/O
  TESSEL_CACHE_DIR=/tmp/tc timeout 120 $bin/gemm_bench --benchmark_filter="$G2" > $OUT/logs/gemm_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/gemm_$v.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,7-9
  save
  TESSEL_CACHE_DIR=/tmp/tc timeout 100 $bin/gemm_group_bench --benchmark_filter="$Q2" > $OUT/logs/group_$v.txt 2>&1
  grep -E "^BM_" $OUT/logs/group_$v.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,7-
  save
done
