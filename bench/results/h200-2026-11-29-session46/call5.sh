#!/usr/bin/env bash
# Session 46 call 5: the merge in the attention kernel with the count by one thread's
# acquire-release atomic from the counter read before the last products (new2). Lab (500
# steps): old (1aa721e's pair), the old attention kernel alone, new1 (call 2's merge), acqrel
# (call 4's), new2, new2 with the L2 prefetch; attention_test and compute-sanitizer over the
# split tests; attention_bench A (1aa721e) / B (new2), three rounds.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs dist/lab && tar -xJf dist/lab.tar.xz -C dist/lab
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
for r in 1 2 3; do for v in old old_nocombine new1 acqrel new2 new2_prefetch; do
  echo "== $v $(timeout 20 ./dist/lab/$v | head -2 | tr '\n' ' ')"; done; done > $OUT/logs/lab.txt 2>&1
cut -c1-100 $OUT/logs/lab.txt; grep -o "checksum.*" $OUT/logs/lab.txt | sort | uniq -c
save
TESSEL_CACHE_DIR=/tmp/tc timeout 100 ./dist/attention_test > $OUT/logs/attention_test.txt 2>&1; echo "attention_test rc=$?"
grep -E "FAILED|^\[  PASSED" $OUT/logs/attention_test.txt | head -5; save
D='BM_Attention/(16/32/8/1/8192|1/32/8/1/16384|1/32/8/1/65536|4/32/8/1/16384|1/32/8/1/4096)/'
for r in 1 2 3; do for v in A B; do
  bin=./dist; [ $v = A ] && bin=./dist/ab/A
  TESSEL_CACHE_DIR=/tmp/tc timeout 40 $bin/attention_bench --benchmark_filter="$D" > $OUT/logs/attn_${v}$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/attn_${v}$r.txt | sed "s/^/$v /;s/min_time:0.300\/manual_time//" | tr -s " " | cut -c1-120
  save
done; done
for tool in memcheck racecheck synccheck; do
  TESSEL_CACHE_DIR=/tmp/tc timeout 60 compute-sanitizer --tool $tool ./dist/attention_test --gtest_filter='*FewHeadsSplitTheKeys*:*ReplayedLaunchesStartAgain*' > $OUT/logs/san_$tool.txt 2>&1
  echo "$tool rc=$?: $(tail -1 $OUT/logs/san_$tool.txt)"; grep -E "^\[  PASSED|FAILED" $OUT/logs/san_$tool.txt | head -3
  save
done
