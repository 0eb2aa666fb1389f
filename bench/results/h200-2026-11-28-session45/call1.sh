#!/usr/bin/env bash
# Session 45 call 1: why q/k/v and SwiGLU at M = 64 run slower in gemm_group_bench than their
# kernels alone (labs: the repro as generated, launched plainly and as tessel launches it,
# with PDL); the benchmarks with TESSEL_PDL=0 and without; wide weights at 100-128 rows
# (S = HEAD; A = HEAD with 128 rows not swapped).
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/logs/smi.txt
for r in 1 2; do for v in qkv_base qkv_pdl qkv_s6 qkv_s10 qkv_a_once swiglu_base swiglu_pdl; do
  echo "== $v $(timeout 20 ./dist/lab/$v | head -1)"; done; done > $OUT/logs/lab.txt 2>&1
cat $OUT/logs/lab.txt
save
G='BM_(CopyBandwidth|Qkv/64/|SwiGlu/64/)'
for r in 1 2; do for p in 1 0; do
  TESSEL_PDL=$p TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/cg timeout 40 ./dist/gemm_group_bench --benchmark_filter="$G" > $OUT/logs/group_pdl${p}_$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/group_pdl${p}_$r.txt | sed "s/min_time:0.300\/manual_time//;s/^/pdl=$p /" | tr -s " " | cut -c1-200
done; save; done
F='BM_ColdWeights/(100|127|128)/(14336|32000)/4096/'
TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/cS timeout 90 ./dist/gemm_bench --benchmark_filter="$F" > $OUT/logs/cold_S.txt 2>&1
grep -E "^BM_" $OUT/logs/cold_S.txt | sed "s/min_time:0.300\/manual_time//;s/^/S /" | tr -s " " | cut -c1-140
save
TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/cA timeout 40 ./dist/ab/A/gemm_bench --benchmark_filter='BM_ColdWeights/128/(14336|32000)/4096/' > $OUT/logs/cold_A.txt 2>&1
grep -E "^BM_" $OUT/logs/cold_A.txt | sed "s/min_time:0.300\/manual_time//;s/^/A /" | tr -s " " | cut -c1-140
save
