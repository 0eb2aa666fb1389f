#!/usr/bin/env bash
# Session 45 call 2: programmatic dependent launch and few-tile GEMMs (labs: one thread waits,
# no early trigger); SwiGLU at 64 rows and the MLP block chain with TESSEL_PDL=0 and without;
# then the GPU duty at HEAD (gemm_test, gpu_test, fuzz_regression_test, loop_test, fuzz diff).
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
for r in 1 2; do for v in qkv_base qkv_pdl qkv_pdl_one qkv_pdl_late qkv_s10 swiglu_base swiglu_pdl swiglu_pdl_one swiglu_pdl_late; do
  echo "== $v $(timeout 20 ./dist/lab/$v | head -1)"; done; done > $OUT/logs/lab.txt 2>&1
cat $OUT/logs/lab.txt | cut -c1-60
save
for p in 1 0; do
  TESSEL_PDL=$p TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/cg timeout 30 ./dist/gemm_group_bench --benchmark_filter='BM_(CopyBandwidth|SwiGlu/64/)' > $OUT/logs/group_pdl$p.txt 2>&1
  grep -E "^BM_" $OUT/logs/group_pdl$p.txt | sed "s/min_time:0.300\/manual_time//;s/^/pdl=$p /" | tr -s " " | cut -c1-200
  TESSEL_PDL=$p TESSEL_CACHE_DIR=/tmp/cl timeout 40 ./dist/loop_bench --benchmark_filter='BM_MlpBlockAtBatch/(64|512)/' > $OUT/logs/loop_pdl$p.txt 2>&1
  grep -E "^BM_" $OUT/logs/loop_pdl$p.txt | sed "s/^/pdl=$p /" | tr -s " " | cut -c1-200
  save
done
(TESSEL_CACHE_DIR=/tmp/tf timeout 75 ./dist/fuzz diff --first=77900000 --count=60000 --jobs=16 --timeout=300 --time_limit=62 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
TESSEL_CACHE_DIR=/tmp/tg timeout 130 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; echo gemm rc=$?; grep -E "FAILED|^\[  PASSED" $OUT/logs/gemm_test.txt | head
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 100 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; echo gpu rc=$?; grep -E "FAILED|^\[  PASSED" $OUT/logs/gpu_test.txt | head
save
TESSEL_CACHE_DIR=/tmp/tr timeout 55 ./dist/fuzz_regression_test > $OUT/logs/fuzz_regression_test.txt 2>&1; tail -1 $OUT/logs/fuzz_regression_test.txt
TESSEL_CACHE_DIR=/tmp/tl timeout 20 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; grep -E "FAILED|^\[  PASSED" $OUT/logs/loop_test.txt | head
save
