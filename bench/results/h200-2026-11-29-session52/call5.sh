#!/usr/bin/env bash
# Session 52 call 5: the few-row rule (64-row tiles widened where that saves a round) on the
# shapes call 4 left open: a single GEMM of 64 rows over wide weights (64 x 14336 / 32000 x
# 4096, weights not in L2: tiles of 64 x 128 / 64 x 256 in one round) and the experts of
# 1..50 rows (88 grouped tiles of 64 x 128), new (dist/) against ea2a2f9's rule (dist/old/,
# the same benchmark source), alternating, three rounds.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
for v in new1 old1 new2 old2 new3 old3; do
  d=./dist; [ ${v:0:3} = old ] && d=./dist/old
  s=$(date +%s); TESSEL_DYNAMIC=0 timeout 40 $d/gemm_bench --benchmark_filter='BM_ColdWeights/64/(14336|32000)/4096/[01]' > $OUT/logs/cold_$v.txt 2>&1
  TESSEL_DYNAMIC=0 timeout 40 $d/gemm_group_bench --benchmark_filter='BM_Experts/0/[01]/' > $OUT/logs/experts_$v.txt 2>&1
  echo "== $v ($(( $(date +%s) - s )) s)"; grep -hE "^BM_" $OUT/logs/cold_$v.txt $OUT/logs/experts_$v.txt | tr -s " " | cut -d" " -f1,2,6-9 | sed 's/min_time:0.300\/manual_time//' | cut -c1-140
  save
done
