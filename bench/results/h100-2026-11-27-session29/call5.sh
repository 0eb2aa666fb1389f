#!/usr/bin/env bash
# Session 29 call 5: the rest of the GPU tests at b50ab78's kernels (session 28 cut
# scan_sort_test and fuzz_regression_test by their timeouts): fuzz regressions, scan/sort,
# loops, streams.
set -u
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/device.txt
timeout 170 ./dist/fuzz_regression_test > $L/fuzz_regression_test.log 2>&1; echo "rc $?" >> $L/fuzz_regression_test.log; save
timeout 150 ./dist/scan_sort_test > $L/scan_sort_test.log 2>&1; echo "rc $?" >> $L/scan_sort_test.log; save
timeout 60 ./dist/loop_test > $L/loop_test.log 2>&1; save
timeout 50 ./dist/stream_test > $L/stream_test.log 2>&1; save
