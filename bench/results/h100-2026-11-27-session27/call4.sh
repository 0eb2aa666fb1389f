#!/usr/bin/env bash
# Session 27 call 4: col-pipe (column groups in turn a cluster, the next loaded while one
# reduces) against stream-trim and main; GPU tests; racecheck over the column tests; fuzz.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
timeout 150 ./dist/gpu_test > $L/gpu_test.log 2>&1; grep -E "^\[  (PASSED|FAILED)|FAILED" $L/gpu_test.log | head -5; save
F='BM_Copy|BM_SoftmaxAxis|BM_CrossEntropy/1|BM_LongSoftmax/1|BM_ReduceAxis/1'
for r in 1 2; do
  for b in gpu_bench st_gpu_bench prev_gpu_bench; do
    timeout 90 ./dist/$b --benchmark_filter="$F" --benchmark_min_time=0.3 2>&1 | grep -E "^BM_|rror" | sed "s/^/$b /" >> $L/bench.log
  done
done; save
timeout 100 compute-sanitizer --tool racecheck ./dist/gpu_test --gtest_filter='*ColumnNormalizations*' > $L/racecheck.log 2>&1; tail -2 $L/racecheck.log; save
timeout 100 compute-sanitizer --tool memcheck ./dist/gpu_test --gtest_filter='*ColumnNormalizations*:*OneHot*' > $L/memcheck.log 2>&1; tail -2 $L/memcheck.log; save
timeout 60 ncu --clock-control none --launch-skip 2 --launch-count 1 --kernel-name regex:'^N_' --section SpeedOfLight --section Occupancy --section WarpStateStats ./dist/gpu_bench --benchmark_filter='BM_SoftmaxAxis/4' --benchmark_min_time=0.01 > $L/ncu_colpipe.txt 2>&1; save
timeout 70 ./dist/fuzz diff --first=68000000 --count=60000 --jobs=16 --timeout=300 --time_limit=55 > $L/fuzz.log 2>&1; tail -1 $L/fuzz.log; save
awk '{for(i=1;i<=NF;i++) if ($i ~ /^%copy|^GB/) printf "%s ", $i; print $1, $2}' $L/bench.log
grep -E "Duration|DRAM Through|Compute \(SM\)|Registers Per|Achieved Occ" $L/ncu_colpipe.txt
