#!/usr/bin/env bash
# Session 46 call 4: the merge in the attention kernel, its parts (lab variants of the
# `attention_decode` repro, 500 steps): the count by one thread's acquire-release atomics
# instead of every thread's fence; no epilogue; no proxy fence; clock64 points of the last blocks.
cd "$(dirname "$0")/.."
mkdir -p $OUT/logs dist/lab && tar -xJf dist/lab.tar.xz -C dist/lab
save() { tar -czf $OUT/call4.tgz -C $OUT logs; }
for r in 1 2 3; do for v in old new acqrel noepi noproxy; do
  echo "== $v $(timeout 20 ./dist/lab/$v | head -1)"; done; done > $OUT/logs/lab.txt 2>&1
cut -c1-100 $OUT/logs/lab.txt
for r in 1 2; do timeout 20 ./dist/lab/tl2; done > $OUT/logs/timeline.txt 2>&1
cat $OUT/logs/timeline.txt
save
