#!/usr/bin/env bash
# Session 46 call 3: where the split decode's merge in the attention kernel spends its time
# (lab variants of the `attention_decode` repro, 500 steps: the count without the merge,
# an untagged count, no fences; block timings of the last step).
cd "$(dirname "$0")/.."
mkdir -p $OUT/logs dist/lab && tar -xJf dist/lab.tar.xz -C dist/lab
save() { tar -czf $OUT/call3.tgz -C $OUT logs; }
for r in 1 2 3; do for v in old old_nocombine new nomerge_clean fastcount nofence; do
  echo "== $v $(timeout 20 ./dist/lab/$v | head -1)"; done; done > $OUT/logs/lab.txt 2>&1
cut -c1-100 $OUT/logs/lab.txt
for v in tl nomerge; do echo "== $v"; timeout 20 ./dist/lab/$v; done > $OUT/logs/timeline.txt 2>&1
cat $OUT/logs/timeline.txt
save
