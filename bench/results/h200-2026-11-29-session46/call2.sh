#!/usr/bin/env bash
# Session 46 call 2: the split decode merged in the attention kernel by the last share (no
# combine launch). Labs (500 steps): the old pair, the old attention kernel alone, the new
# kernel, the new with the L2 prefetch; attention_test and compute-sanitizer over the split
# tests; attention_bench A (1aa721e) / B (the merge) on the decode shapes; issue 15's rows
# left from call 1 and PyTorch; fuzz diff.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64 TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p $OUT/logs dist/lab && tar -xJf dist/lab.tar.xz -C dist/lab
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
for r in 1 2 3; do for v in old old_nocombine new new_prefetch; do
  echo "== $v $(timeout 20 ./dist/lab/decode_$v | head -2 | tr '\n' ' ')"; done; done > $OUT/logs/decode.txt 2>&1
timeout 20 ./dist/lab/decode_new_times > $OUT/logs/decode_times.txt 2>&1
cut -c1-100 $OUT/logs/decode.txt; cat $OUT/logs/decode_times.txt
save
s=$(date +%s); TESSEL_CACHE_DIR=/tmp/tc timeout 150 ./dist/attention_test > $OUT/logs/attention_test.txt 2>&1; echo "attention_test rc=$? $(( $(date +%s) - s )) s"
grep -E "FAILED|^\[  PASSED" $OUT/logs/attention_test.txt | head -5; save
D='BM_Attention/(16/32/8/1/8192|1/32/8/1/16384|1/32/8/1/65536|4/32/8/1/16384|1/32/8/1/4096)/'
for r in 1 2; do for v in A B; do
  bin=./dist; [ $v = A ] && bin=./dist/ab/A
  TESSEL_CACHE_DIR=/tmp/tc timeout 60 $bin/attention_bench --benchmark_filter="$D" > $OUT/logs/attn_${v}$r.txt 2>&1
  grep -E "^BM_" $OUT/logs/attn_${v}$r.txt | sed "s/^/$v /" | tr -s " " | cut -c1-170
  save
done; done
for tool in memcheck racecheck synccheck; do
  TESSEL_CACHE_DIR=/tmp/tc timeout 100 compute-sanitizer --tool $tool ./dist/attention_test --gtest_filter='*FewHeadsSplitTheKeys*:*ReplayedLaunchesStartAgain*' > $OUT/logs/san_$tool.txt 2>&1
  echo "$tool rc=$?: $(tail -1 $OUT/logs/san_$tool.txt)"; grep -E "^\[  PASSED|FAILED" $OUT/logs/san_$tool.txt | head -3
  save
done
(TESSEL_CACHE_DIR=/tmp/tf timeout 75 ./dist/fuzz diff --first=78200000 --count=60000 --jobs=16 --timeout=300 --time_limit=62 > $OUT/logs/fuzz.txt 2>&1; tail -2 $OUT/logs/fuzz.txt)
save
TESSEL_DYNAMIC=0 TESSEL_CACHE_DIR=/tmp/tc timeout 100 ./dist/gemm_group_bench --benchmark_filter='BM_(CopyBandwidth|SwiGlu/(16|100)/|Experts)' > $OUT/logs/group.txt 2>&1; echo "group rc=$?"
grep -E "^BM_" $OUT/logs/group.txt | sed "s/min_time:0.300\/manual_time//" | tr -s " " | cut -c1-200
save
(cd dist && timeout 150 python3 gemm_group_baseline.py > $OUT/logs/torch.txt 2>&1); cat $OUT/logs/torch.txt
save
