#!/usr/bin/env bash
# Session 51 call 5: h1 (A evict_last, B evict_first on the Hopper GEMM's TMA loads):
# gemm_test and gpu_test on it; then main / h1 alternating, two rounds: 8192^3, 4096 x 14336
# x 4096, 16 x 4096 x 4096 (a weight that stays in L2 between calls), SwiGLU at 1024 / 8192.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
for t in gemm_test gpu_test; do
  s=$(date +%s); timeout 90 ./dist/h1/$t > $OUT/logs/$t.txt 2>&1; echo "h1 $t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
dir() { case $1 in main) echo ./dist;; *) echo ./dist/$1;; esac; }
G='BM_(Cublas|Tessel)/(8192/8192/8192|4096/14336/4096|16/4096/4096)/0/'
Q='BM_SwiGlu/(1024|8192)/[01]/'
for r in 1 2; do
  for v in main h1; do
    s=$(date +%s); timeout 80 $(dir $v)/gemm_bench --benchmark_filter="$G" > $OUT/logs/gemm_$v$r.txt 2>&1
    s2=$(date +%s); TESSEL_DYNAMIC=0 timeout 80 $(dir $v)/gemm_group_bench --benchmark_filter="$Q" > $OUT/logs/group_$v$r.txt 2>&1
    echo "== $v $r ($((s2 - s)) s, $(( $(date +%s) - s2 )) s)"; grep -hE "^BM_" $OUT/logs/gemm_$v$r.txt $OUT/logs/group_$v$r.txt | tr -s " " | cut -d" " -f1,2,6-8 | sed 's/min_time:0.300\/manual_time//' | cut -c1-120
    save
  done
done
