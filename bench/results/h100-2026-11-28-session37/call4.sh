#!/usr/bin/env bash
# Session 37 call 4: long columns' shared lanes copied as 16-byte runs by the block
# (TESSEL_RUNS=1, a lab switch) against each thread's 4-byte copies, one binary, alternating
# (three rounds); gpu_test's column normalizations with runs; fuzz diff at 881b13d + the switch.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
F='BM_Copy|BM_SoftmaxAxis/(4|7)/'
for r in 1 2 3; do
  timeout 60 ./dist/gpu_bench --benchmark_filter="$F" > $L/threads_$r.log 2>&1; save
  TESSEL_RUNS=1 timeout 60 ./dist/gpu_bench --benchmark_filter="$F" > $L/runs_$r.log 2>&1; save
done
TESSEL_RUNS=1 timeout 150 ./dist/gpu_test --gtest_filter='*Column*:*ClusterRows*' > $L/gpu_test_runs.log 2>&1; save
timeout 100 ./dist/fuzz diff --first=75800000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $L/fuzz_diff.log 2>&1; save
for f in threads_1 runs_1 threads_2 runs_2 threads_3 runs_3; do echo "== $f"; grep -E "BM_Copy|SoftmaxAxis" $L/$f.log | sed 's/ \+/ /g' | cut -c1-120; done
tail -3 $L/gpu_test_runs.log; tail -5 $L/fuzz_diff.log
