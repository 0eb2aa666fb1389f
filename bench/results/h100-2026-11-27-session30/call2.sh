#!/usr/bin/env bash
# Session 30 call 2: the column softmax lab (memory-pattern and persistent variants) and
# Nsight Compute's DRAM bytes over one launch of each; branch dual-n256: all GEMM tests,
# racecheck over the dual test, SwiGLU at M = 64 against main.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
timeout 60 ./dist/lab/column_lab > $L/column_lab.log 2>&1; save
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
LAB_ONCE=1 timeout 90 ncu --clock-control none --metrics $M --kernel-name-base demangled --kernel-name regex:'copy4|N_|held|stride|pipe|twopass' ./dist/lab/column_lab > $L/column_ncu.log 2>&1; save
timeout 220 ./dist/dual/gemm_test > $L/dual_gemm_test_all.log 2>&1; save
timeout 120 compute-sanitizer --tool racecheck ./dist/dual/gemm_test --gtest_filter='*DualGemmsNeverWriteTheirProducts*' > $L/dual_racecheck.log 2>&1; save
for b in main dual; do
  bin=./dist/gemm_group_bench; [ $b = dual ] && bin=./dist/dual/gemm_group_bench
  timeout 35 $bin --benchmark_filter="BM_SwiGlu/64/" > $L/swiglu64_$b.log 2>&1; save
done
