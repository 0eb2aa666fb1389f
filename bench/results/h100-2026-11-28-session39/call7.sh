#!/usr/bin/env bash
# Session 39 call 7: gpu_test and fuzz diff at cff3b20 (call 6 spent its time on benchmarks).
set -u
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions TESSEL_CACHE_DIR=/tmp/tc_new
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call7.tgz -C $OUT logs; }
timeout 200 ./dist/gpu_test > $L/gpu_test.log 2>&1; echo "rc=$?" >> $L/gpu_test.log; save
timeout 85 ./dist/fuzz diff --first=76500000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $L/fuzz.log 2>&1; save
grep -E "^\[  (PASSED|FAILED) |tests ran|rc=" $L/gpu_test.log | tail -8; tail -3 $L/fuzz.log
