#!/usr/bin/env bash
# Session 50 call 2: long rows with one cluster exchange of (max, sum) pairs (`online`: the
# block's max then its sum; `online1`: a pair a thread, one block reduction) against base.
cd "$(dirname "$0")/.."
mkdir -p $OUT/logs
for r in 1 2 3; do for v in base online online1 local; do echo "long_rows $v $(timeout 20 ./dist/lab/lr/$v 2>&1 | head -2 | tr '\n' ' ')"; done; done | tee $OUT/logs/long_rows2.txt
tar -czf $OUT/call2.tgz -C $OUT logs
