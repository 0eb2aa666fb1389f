#!/usr/bin/env bash
# Session 52 call 4: few-row tiles of 64 x 128 where they take one round and 64 x 64 two
# (this session's rule in codegen/gemm_sm90_tiles.cc): gemm_test (FewRowsTakeTheWiderTile...),
# fuzz diff 79600000..; gemm_group_bench new (dist/) against ea2a2f9 (dist/old/), alternating,
# two rounds: SwiGLU at 16 / 64 / 100, the experts of 1..50 and 1..16 rows, q/k/v at 64.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
for t in gemm_test; do
  s=$(date +%s); timeout 100 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E '^\[  PASSED|^\[  FAILED' $OUT/logs/$t.txt | head -3 | tr '\n' ' ')"; grep -E "^\[  FAILED" $OUT/logs/$t.txt | head -5; save
done
Q='BM_(CopyBandwidth|SwiGlu/(16|64|100)/[01]/|Experts/[02]/[01]/|Qkv/64/[01]/)'
for v in new1 old1 new2 old2; do
  d=./dist; [ ${v:0:3} = old ] && d=./dist/old
  s=$(date +%s); TESSEL_DYNAMIC=0 timeout 90 $d/gemm_group_bench --benchmark_filter="$Q" > $OUT/logs/group_$v.txt 2>&1
  echo "== $v ($(( $(date +%s) - s )) s)"; grep -hE "^BM_" $OUT/logs/group_$v.txt | tr -s " " | cut -d" " -f1,2,6-8 | sed 's/min_time:0.300\/manual_time//' | cut -c1-120
  save
done
TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=79600000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt
save
