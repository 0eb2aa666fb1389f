#!/usr/bin/env bash
# Session 55 call 7: many long rows held in one block's shared memory (new: fusion's second
# plan, codegen/row_held.cc) on a GPU for the first time: gpu_test (HeldRows first), loop_test;
# gpu_bench's row lengths and normalization rows, new (dist) against old (dist/old: 9a6a132's
# planner, the same benchmarks) alternating, two rounds; fuzz diff 80600000..
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call7.tgz -C $OUT logs; }
export TESSEL_CACHE_DIR=/tmp/tc
s=$(date +%s); timeout 60 ./dist/gpu_test --gtest_filter='*HeldRows*:*Normalizations*:*ClusterRows*' > $OUT/logs/held_test.txt 2>&1; echo "held tests rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/held_test.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED|Failure" -A6 $OUT/logs/held_test.txt | head -30; save
F='BM_Copy|BM_SoftmaxRowLength|BM_LongSoftmax/1|BM_Softmax/|BM_LayerNorm/1|BM_CrossEntropy/1'
for r in 1 2; do
  for v in new old; do
    d=./dist; [ $v = old ] && d=./dist/old
    TESSEL_CACHE_DIR=/tmp/tb_$v timeout 100 $d/gpu_bench --benchmark_filter="$F" > $OUT/logs/bench_${v}$r.txt 2>&1
    echo "== $v round $r"; grep -E "^BM_" $OUT/logs/bench_${v}$r.txt | tr -s " " | cut -d" " -f1,2,6- | sed 's/manual_time //'; save
  done
done
for t in gpu_test loop_test; do
  s=$(date +%s); timeout 120 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=80600000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
