#!/usr/bin/env bash
# Session 40 call 2: tile widths of the bf16 short-column softmax (lab), gpu_bench's softmax rows.
cd "$(dirname "$0")/.."
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
(cd dist/lab/tile_width && for r in 1 2 3; do for b in *; do echo "$r $b $(./$b | tr '\n' ' ')"; done; done) > $OUT/logs/tile_width_lab.txt 2>&1
cat $OUT/logs/tile_width_lab.txt | awk '{print $1, $2, $4, $5, $6, $NF}'
save
TESSEL_CACHE_DIR=/tmp/tb1 timeout 300 ./dist/gpu_bench --benchmark_filter='BM_Copy|BM_SoftmaxAxis/[5-7]|BM_LongSoftmax|BM_CrossEntropy/[12]|BM_SixtyFourUpdates/1' --benchmark_repetitions=2 --benchmark_min_time=0.3 > $OUT/logs/gpu_bench.txt 2>&1
grep -v '^\s*$' $OUT/logs/gpu_bench.txt | grep -E 'BM_' | grep -v '_mean\|_median\|_stddev\|_cv'
save
