#!/usr/bin/env bash
# Session 49 call 3: gemm_bench's many-round rows at 781625c (O: the early trigger on every
# walk past one round) against the working tree (B: only within two rounds), two rounds;
# the GPU duty: gemm_test, gpu_test, fuzz_regression_test, loop_test, fuzz diff 78800000;
# rank1_tma_lab under memcheck (which kernel and instruction trap).
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
timeout 60 compute-sanitizer --tool memcheck --show-backtrace device ./dist/lab/rank1_tma_lab > $OUT/logs/rank1_san.txt 2>&1; echo "rank1 memcheck rc=$?"; head -30 $OUT/logs/rank1_san.txt | cut -c1-160; save
G='(BM_Cublas|BM_Tessel)/(8192/8192/8192|4096/4096/4096|8192/11008/4096|4096/14336/4096|1536/4096/4096|2560/4096/4096)/'
for r in 1 2; do for v in O B; do
  bin=./dist; [ $v == O ] && bin=./dist/ab/O
  TESSEL_CACHE_DIR=/tmp/tc timeout 100 $bin/gemm_bench --benchmark_filter="$G" > $OUT/logs/gemm_$v$r.txt 2>&1
  grep -E "^BM_Tessel" $OUT/logs/gemm_$v$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -d" " -f1,2,3,7,8
  save
done; done
for t in gemm_test gpu_test fuzz_regression_test loop_test; do
  s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 90 ./dist/$t > $OUT/logs/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s )) s"
  grep -E "FAILED|^\[  PASSED" $OUT/logs/$t.txt | head -5; save
done
(TESSEL_CACHE_DIR=/tmp/tf timeout 75 ./dist/fuzz diff --first=78800000 --count=60000 --jobs=16 --timeout=300 --time_limit=62 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
