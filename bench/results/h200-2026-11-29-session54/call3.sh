#!/usr/bin/env bash
# Session 54 call 3: 7159cb4 (Hopper GEMMs take the batch as their K) on top of 1cd5642:
# the training step over batch sizes 33..40 from an empty cache, new against e4ab5ca
# (dist/old); loop_test, gemm_test, gpu_test, attention_test; fuzz diff 80300000..;
# BM_BatchSizes and the training loop, new and old alternating, three rounds.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
for v in new1 old1; do
  d=./dist; [ ${v:0:3} = old ] && d=./dist/old
  rm -rf /tmp/tb_$v
  TESSEL_CACHE_DIR=/tmp/tb_$v timeout 150 $d/loop_bench --benchmark_filter='BM_TrainingBatchSizes' > $OUT/logs/tbs_$v.txt 2>&1
  echo "training batch sizes $v: $(grep -hE '^BM_' $OUT/logs/tbs_$v.txt | grep -oE '(plans_built|modules_loaded|s_per_pass)=[0-9.k]+' | tr '\n' ' ')"
  save
done
export TESSEL_CACHE_DIR=/tmp/tc
for t in loop_test gpu_test; do
  s=$(date +%s); timeout 120 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=80300000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
for v in new1 old1 new2 old2 new3 old3; do
  d=./dist; [ ${v:0:3} = old ] && d=./dist/old
  timeout 60 $d/loop_bench --benchmark_filter='BM_TrainingLoop|BM_BatchSizes' > $OUT/logs/loop_$v.txt 2>&1
  echo "loop $v: $(grep -hE '^BM_' $OUT/logs/loop_$v.txt | grep -oE '(ms_per_step|us_per_size)=[0-9.k]+' | tr '\n' ' ')"
  save
done
s=$(date +%s); timeout 200 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; echo "gemm_test rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/gemm_test.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/gemm_test.txt | head -5
save
