#!/usr/bin/env bash
# Session 51 call 4: L2 eviction hints on the Hopper GEMM's TMA loads (A, reused across a
# band's waves, evict_last; h1: B evict_first, h2: B as before) against main (dist/):
# Nsight Compute's DRAM bytes and clocks on 4096 x 14336 x 4096 + residual, then the big
# GEMMs, the residual rows, SwiGLU at 1024 / 8192 and the large experts, variants alternating.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
M="dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,gpc__cycles_elapsed.max,gpu__time_duration.sum"
dir() { case $1 in main) echo ./dist;; *) echo ./dist/$1;; esac; }
for v in main h1 h2; do
  timeout 60 ncu --clock-control none --kernel-name regex:'^G_' --launch-skip 3 --launch-count 1 --metrics "$M" \
    $(dir $v)/gemm_bench --benchmark_filter='BM_Tessel/4096/14336/4096/2/' --benchmark_min_time=0.01 > $OUT/logs/ncu_$v.txt 2>&1
  echo "== ncu $v"; grep -E "dram__|hit_rate|tensor_op|gpc__cycles|gpu__time" $OUT/logs/ncu_$v.txt | tr -s " "
done
save
G='BM_(Cublas|Tessel)/(8192/8192/8192|4096/4096/4096|4096/14336/4096|1536/4096/4096)/0/|BM_Tessel/(8192/8192/8192|4096/14336/4096)/2/'
Q='BM_(SwiGlu/(1024|8192)/[01]/|Experts/1/1)'
for r in ${ROUNDS:-1}; do
  for v in main h1 h2; do
    s=$(date +%s); timeout 100 $(dir $v)/gemm_bench --benchmark_filter="$G" > $OUT/logs/gemm_$v$r.txt 2>&1
    s2=$(date +%s); TESSEL_DYNAMIC=0 timeout 100 $(dir $v)/gemm_group_bench --benchmark_filter="$Q" > $OUT/logs/group_$v$r.txt 2>&1
    echo "== $v $r ($((s2 - s)) s, $(( $(date +%s) - s2 )) s)"; grep -hE "^BM_" $OUT/logs/gemm_$v$r.txt $OUT/logs/group_$v$r.txt | tr -s " " | cut -d" " -f1,2,6-8 | sed 's/min_time:0.300\/manual_time//' | cut -c1-120
    save
  done
done
