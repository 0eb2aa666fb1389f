#!/usr/bin/env bash
# Session 29 call 3: the K slices' walk from shared memory (tail-slices v2): kernel durations
# under Nsight Compute against main (16 / 1536 x 4096 x 4096, SwiGLU M = 1024), the few-tile
# row alternating, the slices' GEMM tests; branch b-regs-64's TF32 tests and skinny TF32 rows.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
NCU="ncu --clock-control none --metrics gpu__time_duration.sum --kernel-name regex:^G_ --launch-count 6"
for v in main new; do
  b=./dist; [ $v = main ] && b=./dist/main
  timeout 30 $NCU $b/gemm_bench --benchmark_filter='BM_Tessel/16/4096/4096/0/' --benchmark_min_time=0.01 > $L/ncu_few_$v.txt 2>&1; save
  timeout 40 $NCU $b/gemm_bench --benchmark_filter='BM_Tessel/1536/4096/4096/0/' --benchmark_min_time=0.01 > $L/ncu_1536_$v.txt 2>&1; save
  timeout 40 $NCU $b/gemm_group_bench --benchmark_filter='BM_SwiGlu/1024/1/' --benchmark_min_time=0.01 > $L/ncu_swiglu_$v.txt 2>&1; save
done
for r in 1 2; do
  timeout 20 ./dist/main/gemm_bench --benchmark_filter='BM_Tessel/16/4096/4096/0/' > $L/few_main_$r.log 2>&1; save
  timeout 20 ./dist/gemm_bench --benchmark_filter='BM_Tessel/16/4096/4096/0/' > $L/few_new_$r.log 2>&1; save
done
timeout 80 ./dist/gemm_test --gtest_filter='*TheLastRounds*:*KSlices*' > $L/gemm_test_slices.log 2>&1; save
timeout 70 ./dist/breg/gemm_test --gtest_filter='*Tf32*' > $L/breg_gemm_test.log 2>&1; save
F='BM_F32/(16|64)/4096/4096/[02]/'
timeout 30 ./dist/main/gemm_bench --benchmark_filter="$F" > $L/f32_main.log 2>&1; save
timeout 30 ./dist/breg/gemm_bench --benchmark_filter="$F" > $L/f32_breg.log 2>&1; save
