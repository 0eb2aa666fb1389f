#!/usr/bin/env bash
# Session 51 call 3: Nsight Compute on 4096 x 14336 x 4096 plain (TMA store) against + bias +
# GELU + residual (epilogue warps): issue 13's residual row loses 5-7% to its epilogue; and
# the SwiGLU dual GEMM at M = 1024.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
M="dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,gpc__cycles_elapsed.max,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active"
prof() {  # name binary filter
  timeout 150 ncu --clock-control none --kernel-name regex:'^G_' --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    --metrics "$M" ./dist/$2 --benchmark_filter="$3" --benchmark_min_time=0.01 > $OUT/logs/ncu_$1.txt 2>&1
  echo "== $1 rc=$?"; grep -E "Duration|Tensor|tensor_op|dram__bytes|hit_rate|Memory Throughput|Compute \(SM\)|Warp Cycles Per Issued|Stall|sm__cycles_active|gpc__cycles|Issued Warp|No Eligible|DRAM Throughput|L2 Hit" $OUT/logs/ncu_$1.txt | tr -s " " | head -40
  save
}
prof plain gemm_bench 'BM_Tessel/4096/14336/4096/0/'
prof residual gemm_bench 'BM_Tessel/4096/14336/4096/2/'
TESSEL_DYNAMIC=0 prof swiglu gemm_group_bench 'BM_SwiGlu/1024/1/'
