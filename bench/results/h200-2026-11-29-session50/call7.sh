#!/usr/bin/env bash
# Session 50 call 7: a consumer holds a finished tile's accumulators and stages it under the
# next tile's first wgmmas (kHold, uncommitted): gemm_test, and again with 3 persistent blocks
# (every block walks many tiles), gpu_test; new / 950887d (dist/old) alternating, two rounds:
# gemm_group_bench q/k/v, SwiGLU at 64 / 1024, the large experts; gemm_bench 16 / 1536 / 2560 /
# 4096 x 4096 x 4096; fuzz diff 79200000..
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call7.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
s=$(date +%s); timeout 80 ./dist/gemm_test > $OUT/logs/gemm_test.txt 2>&1; echo "gemm_test rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/gemm_test.txt | head -3 | tr '\n' ' ')"; save
s=$(date +%s); TESSEL_PERSISTENT_BLOCKS=3 timeout 80 ./dist/gemm_test > $OUT/logs/gemm_test3.txt 2>&1; echo "gemm_test blocks=3 rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/gemm_test3.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/gemm_test3.txt | head -5; save
s=$(date +%s); timeout 40 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; echo "gpu_test rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/gpu_test.txt | head -3 | tr '\n' ' ')"; save
G='BM_(CopyBandwidth|Qkv/(64|1024)/[01]/|SwiGlu/(64|1024)/[01]/|Experts/1/)'
B='BM_(Tessel|Cublas)/(1536|2560|4096|16)/4096/4096/0/'
for r in 1 2; do
  for v in new old; do
    if [ $v = new ]; then d=./dist; else d=./dist/old; fi
    TESSEL_DYNAMIC=0 timeout 60 $d/gemm_group_bench --benchmark_filter="$G" > $OUT/logs/group_$v$r.txt 2>&1
    timeout 40 $d/gemm_bench --benchmark_filter="$B" > $OUT/logs/gemm_$v$r.txt 2>&1
    echo "== $v $r"; grep -E "^BM_" $OUT/logs/group_$v$r.txt $OUT/logs/gemm_$v$r.txt | sed 's/.*logs\///' | tr -s " " | cut -d" " -f1,2,6- | sed 's/min_time:0.300\/manual_time//' | cut -c1-150
    save
  done
done
(TESSEL_CACHE_DIR=/tmp/tf timeout 80 ./dist/fuzz diff --first=79200000 --count=60000 --jobs=16 --timeout=300 --time_limit=65 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
