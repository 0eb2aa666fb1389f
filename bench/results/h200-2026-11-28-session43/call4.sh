#!/usr/bin/env bash
# Session 43 call 4: lab (dist/lab43/oob.cu, from the projection_decode repro made the kernel
# with rows as an argument): A's map of `rows` rows or 128, A's last row tile shifted in bounds.
cd "$(dirname "$0")/.."
mkdir -p $OUT/logs
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
for r in 1 2; do for b in dist/lab43/oob_*; do echo "$r $(basename $b): $(timeout 30 $b 2>&1 | head -1)"; done; done > $OUT/logs/oob.txt 2>&1; cat $OUT/logs/oob.txt
save
