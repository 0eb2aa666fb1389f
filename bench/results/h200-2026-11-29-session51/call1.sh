#!/usr/bin/env bash
# Session 51 call 1: 97848c2 / b8a0d0d / 86e865d on a GPU (gpu_test, gemm_test,
# fuzz_regression_test, loop_test, attention_test), fuzz diff 79300000.., then
# gemm_hold.patch (dist/ab) against main alternating, round 1.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for t in gpu_test gemm_test fuzz_regression_test loop_test attention_test; do
  s=$(date +%s); timeout 100 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
G='BM_(CopyBandwidth|Qkv/1024/[02]/|SwiGlu/64/[01]/|Experts/1/)'
B='BM_(Tessel|Cublas)/(1536|2560|4096)/4096/4096/0/'
for r in ${ROUNDS:-1}; do
  for v in hold main; do
    if [ $v = hold ]; then d=./dist/ab; else d=./dist; fi
    s=$(date +%s); TESSEL_DYNAMIC=0 timeout 130 $d/gemm_group_bench --benchmark_filter="$G" > $OUT/logs/group_$v$r.txt 2>&1
    s2=$(date +%s); timeout 100 $d/gemm_bench --benchmark_filter="$B" > $OUT/logs/gemm_$v$r.txt 2>&1
    echo "== $v $r ($((s2 - s)) s, $(( $(date +%s) - s2 )) s)"; grep -E "^BM_" $OUT/logs/group_$v$r.txt $OUT/logs/gemm_$v$r.txt | sed 's/.*logs\///' | tr -s " " | cut -d" " -f1,2,6- | sed 's/min_time:0.300\/manual_time//' | cut -c1-150
    save
  done
done
[ -n "$NOFUZZ" ] || (TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=79300000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
