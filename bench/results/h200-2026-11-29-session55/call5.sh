#!/usr/bin/env bash
# Session 55 call 2: the long-rows lab's fourth round: a row held in the shared memory of a cluster (one exchange of online pairs), beside the trimmed, ring and
# two passes in one launch (the second from L2), twice.
cd "$(dirname "$0")/.."
mkdir -p $OUT/logs
for r in 1 2; do timeout 60 ./dist/lab/long_rows_ring_lab > $OUT/logs/ring$r.txt 2>&1; echo "round $r rc=$?"; cat $OUT/logs/ring$r.txt; done
tar -czf $OUT/call5.tgz -C $OUT logs
