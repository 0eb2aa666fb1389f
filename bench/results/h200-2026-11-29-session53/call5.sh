#!/usr/bin/env bash
# Session 53 call 5: the training loop's host time at f1c1c80 (settings read before a plan
# runs; the planner's on a miss only) against 61bdacf + 768f40b (dist/old/), alternating,
# three rounds; loop_test.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
timeout 60 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; echo "loop_test: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/loop_test.txt | tr '\n' ' ')"
for v in new1 old1 new2 old2 new3 old3; do
  d=./dist; [ ${v:0:3} = old ] && d=./dist/old
  timeout 30 $d/loop_bench --benchmark_filter='BM_TrainingLoop' > $OUT/logs/loop_$v.txt 2>&1
  echo "loop $v: $(grep -hE '^BM_' $OUT/logs/loop_$v.txt | grep -oE 'ms_per_step=[0-9.]+' | tr '\n' ' ')"
  save
done
