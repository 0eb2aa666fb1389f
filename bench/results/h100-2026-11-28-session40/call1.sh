#!/usr/bin/env bash
# Session 40 call 1: GPU tests, the launch test on the real driver, fuzz diff, the tile-store lab.
cd "$(dirname "$0")/.."
export TESSEL_CACHE_DIR=/tmp/tc LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/logs/device.txt
git log -1 --format=%H > $OUT/logs/commit.txt 2>/dev/null
(timeout 100 ./dist/fuzz diff --first=76600000 --count=60000 --jobs=16 --timeout=300 --time_limit=85 > $OUT/logs/fuzz.txt 2>&1; tail -3 $OUT/logs/fuzz.txt)
save
(cd dist/lab/tile_store && for r in 1 2 3; do for k in be6a65eb 8f6e7bdc; do for v in base cs tile tile_cs; do echo "$r $k $v $(./N_cast_max_sub_exp_$k.$v | tr '\n' ' ')"; done; done; done) > $OUT/logs/tile_lab.txt 2>&1
cat $OUT/logs/tile_lab.txt
save
TESSEL_CACHE_DIR=/tmp/tc2 timeout 200 ./dist/gpu_test > $OUT/logs/gpu_test.txt 2>&1; tail -3 $OUT/logs/gpu_test.txt
TESSEL_CACHE_DIR=/tmp/tc3 timeout 100 ./dist/loop_test > $OUT/logs/loop_test.txt 2>&1; tail -3 $OUT/logs/loop_test.txt
TESSEL_CACHE_DIR=/tmp/tc4 timeout 100 ./dist/launch_test > $OUT/logs/launch_test.txt 2>&1; tail -3 $OUT/logs/launch_test.txt
save
