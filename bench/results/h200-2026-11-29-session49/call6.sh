#!/usr/bin/env bash
# Session 49 call 6: fuzz diff with the generator's longest key lists (cf40074):
# 78900000..
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs
save() { tar -czf $OUT/call6.tgz -C $OUT logs; }
(TESSEL_CACHE_DIR=/tmp/tf timeout 85 ./dist/fuzz diff --first=78900000 --count=60000 --jobs=16 --timeout=300 --time_limit=70 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
