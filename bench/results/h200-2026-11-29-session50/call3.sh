#!/usr/bin/env bash
# Session 50 call 3: long rows held by clusters of 4 (half of each thread's 32 values staged
# in shared memory: one wave of 256 blocks) against base (clusters of 8, two waves).
cd "$(dirname "$0")/.."
mkdir -p $OUT/logs
for r in 1 2 3; do for v in base staged online; do echo "long_rows $v $(timeout 20 ./dist/lab/lr/$v 2>&1 | head -2 | tr '\n' ' ')"; done; done | tee $OUT/logs/long_rows3.txt
tar -czf $OUT/call3.tgz -C $OUT logs
