#!/usr/bin/env bash
# Session 26 call 3: K slices only within one wave: tests, sanitizers, decode rows new vs
# previous binary (each row its own process), q/k/v and SwiGLU at M = 64, fuzz.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
timeout 120 ./dist/gemm_test --gtest_filter='*KSlice*:*FewRows*:*Sibling*:*Dual*:*Repeated*' > $L/gemm_test.log 2>&1; tail -3 $L/gemm_test.log; save
timeout 40 ./dist/loop_test --gtest_filter='*KSlice*:*Sibling*' > $L/loop_test.log 2>&1; tail -2 $L/loop_test.log; save
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool ./dist/loop_test --gtest_filter='*KSlice*' > $L/$tool.log 2>&1; tail -2 $L/$tool.log; save
done
for rep in 1 2; do
  for b in prev_gemm_bench gemm_bench; do
    for row in 16/4096/4096 1/4096/4096 32/4096/4096 64/4096/4096; do
      timeout 20 ./dist/$b --benchmark_filter="BM_(Cublas|Tessel)/$row/0" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_" | sed "s/^/$b /" >> $L/gemm.log
    done
  done
done; save
for b in prev_gemm_group_bench gemm_group_bench; do
  timeout 40 ./dist/$b --benchmark_filter="BM_CopyBandwidth|BM_Qkv/64/|BM_SwiGlu/64/" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_(Q|S)" | sed "s/^/$b /" >> $L/groups.log
done; save
timeout 60 ./dist/fuzz diff --first=63000000 --count=60000 --jobs=16 --timeout=300 --time_limit=45 > $L/fuzz.log 2>&1; tail -2 $L/fuzz.log; save
cut -c1-150 $L/gemm.log $L/groups.log
