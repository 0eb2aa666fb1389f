#!/usr/bin/env bash
# Session 56 call 5: fuzz seed 80945064 is a ptxas 13.0.88 miscompile (a store's predicate
# rematerialized from a register already reused). The minimized kernel's harness under
# ptxas options (-O2, -O1, no expensive optimizations, regAllocOptLevel=2); then NVRTC 13.5
# (PyPI nvidia-cuda-nvrtc 13.5.37) in place of the machine's 13.0: the seed, its program
# through dbg, and a fuzz diff campaign from 81000000.
cd "$(dirname "$0")/.."
mkdir -p $OUT/logs
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
for v in o3 O2 O1 noexp ra2; do timeout 60 ./dist/fz/h_$v; done 2>&1 | tee $OUT/logs/harness.txt
export TESSEL_FUZZ_REGRESSIONS=$PWD/dist/regressions
mkdir -p /tmp/n135 && xz -d -c dist/nvrtc135/libnvrtc.so.13.xz > /tmp/n135/libnvrtc.so.13 && xz -d -c dist/nvrtc135/libnvrtc-builtins.so.13.5.xz > /tmp/n135/libnvrtc-builtins.so.13.5
export LD_LIBRARY_PATH=/tmp/n135:$PWD/dist:/usr/local/cuda/lib64
TESSEL_CACHE_DIR=/tmp/c135 timeout 60 ./dist/fuzz run --mode=diff --seed=80945064 > $OUT/logs/seed135.txt 2>&1; echo "seed with nvrtc 13.5 rc=$?"; tail -2 $OUT/logs/seed135.txt; save
TESSEL_CACHE_DIR=/tmp/c135b timeout 60 ./dist/dbg dist/orig.txt > $OUT/logs/dbg135.txt 2>&1; echo "dbg rc=$?"; grep -v "^  \[" $OUT/logs/dbg135.txt | tail -4; save
TESSEL_CACHE_DIR=/tmp/f135 timeout 100 ./dist/fuzz diff --first=81000000 --count=60000 --jobs=16 --timeout=300 --time_limit=80 > $OUT/logs/fuzz135.txt 2>&1; tail -2 $OUT/logs/fuzz135.txt; grep -A3 "^FAIL" $OUT/logs/fuzz135.txt | head -20
save
