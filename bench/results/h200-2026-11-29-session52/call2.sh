#!/usr/bin/env bash
# Session 52 call 2: SwiGLU gate and up at M = 64 / 1024 / 8192 (TESSEL_DYNAMIC=0), e33a9b2
# (dist/, keep_a landed) against 86e865d (dist/old/), alternating, two rounds.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
Q='BM_(CopyBandwidth|SwiGlu/(64|1024|8192)/[01]/)'
for v in new1 old1 new2 old2; do
  d=./dist; [ ${v:0:3} = old ] && d=./dist/old
  s=$(date +%s); TESSEL_DYNAMIC=0 timeout 120 $d/gemm_group_bench --benchmark_filter="$Q" > $OUT/logs/group_$v.txt 2>&1
  echo "== $v ($(( $(date +%s) - s )) s)"; grep -hE "^BM_" $OUT/logs/group_$v.txt | tr -s " " | cut -d" " -f1,2,6-8 | sed 's/min_time:0.300\/manual_time//' | cut -c1-120
  save
done
