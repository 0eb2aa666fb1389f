#!/usr/bin/env bash
# Session 29 call 4: main at 9c5775b (the last round's K slices; TF32 B in registers on 64-row
# tiles) - the GEMM tests, racecheck and memcheck over the new kernels' tests, the few-tile row
# against b7b9bd6's binary alternating, 1536 x 4096 x 4096 and skinny TF32, fuzz diff.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
timeout 150 ./dist/gemm_test > $L/gemm_test.log 2>&1; save
CS="compute-sanitizer --print-limit 10"
timeout 75 $CS --tool racecheck ./dist/gemm_test --gtest_filter='*TheLastRounds*:*Tf32ReadsBAsStored*' > $L/racecheck.log 2>&1; save
timeout 45 $CS --tool memcheck ./dist/gemm_test --gtest_filter='*TheLastRounds*' > $L/memcheck.log 2>&1; save
for r in 1 2; do
  timeout 15 ./dist/main/gemm_bench --benchmark_filter='BM_Tessel/16/4096/4096/0/' > $L/few_main_$r.log 2>&1; save
  timeout 15 ./dist/gemm_bench --benchmark_filter='BM_Tessel/16/4096/4096/0/' > $L/few_new_$r.log 2>&1; save
done
timeout 30 ./dist/gemm_bench --benchmark_filter='BM_(Cublas|Tessel)/1536/4096/4096/0/' > $L/gemm1536.log 2>&1; save
timeout 30 ./dist/gemm_bench --benchmark_filter='BM_F32/(16|64)/4096/4096/[02]/' > $L/f32.log 2>&1; save
timeout 90 ./dist/fuzz diff --first=71000000 --count=60000 --jobs=16 --timeout=300 --time_limit=75 > $L/fuzz.log 2>&1; save
