#!/usr/bin/env bash
# Session 51 call 2: 1536 / 2560 x 4096 x 4096 ran 89% / 92% of cuBLASLt in call 1 against
# 100.6-101.0% / 95.5-96.2% in session 49 call 3 (same kernel source): session 49's six-shape
# filter again, then the two rows alone, two rounds each, with the GPU's clocks and throttle
# reasons; gemm_group_bench's SwiGLU 1024 and experts on main.
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/dist:/usr/local/cuda/lib64
mkdir -p $OUT/logs
save() { tar -czf $OUT/call2.tgz -C $OUT logs; }
source dist/prefill.sh
prefilled_cache /tmp/tc
export TESSEL_CACHE_DIR=/tmp/tc
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > $OUT/logs/smi0.txt
S='(BM_Cublas|BM_Tessel)/(8192/8192/8192|4096/4096/4096|8192/11008/4096|4096/14336/4096|1536/4096/4096|2560/4096/4096)/0/'
T='(BM_Cublas|BM_Tessel)/(1536|2560)/4096/4096/0/'
for r in 1 2; do
  timeout 120 ./dist/gemm_bench --benchmark_filter="$S" > $OUT/logs/six$r.txt 2>&1
  echo "== six $r"; grep -E "^BM_" $OUT/logs/six$r.txt | tr -s " " | cut -d" " -f1,2,6-8 | sed 's/min_time:0.300\/manual_time//'
  nvidia-smi -q -d CLOCK,POWER,PERFORMANCE > $OUT/logs/smi_six$r.txt
  timeout 60 ./dist/gemm_bench --benchmark_filter="$T" > $OUT/logs/two$r.txt 2>&1
  echo "== two $r"; grep -E "^BM_" $OUT/logs/two$r.txt | tr -s " " | cut -d" " -f1,2,6-8 | sed 's/min_time:0.300\/manual_time//'
  save
done
TESSEL_DYNAMIC=0 timeout 120 ./dist/gemm_group_bench --benchmark_filter='BM_(SwiGlu/1024/[01]/|Experts/1/)' > $OUT/logs/group.txt 2>&1
grep -E "^BM_" $OUT/logs/group.txt | tr -s " " | cut -d" " -f1,2,6- | cut -c1-150
(cd dist && timeout 100 python3 gemm_group_baseline.py > $OUT/logs/torch.txt 2>&1; grep -i "expert\|grouped" $OUT/logs/torch.txt | head -5)
save
