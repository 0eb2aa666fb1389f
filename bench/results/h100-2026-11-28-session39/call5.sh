#!/usr/bin/env bash
# Session 39 call 5: the fast-math lab with a fourth variant, every expf(t) as one multiply and
# ex2.approx (the online sums' form), over the slow axes' generated kernels.
set -u
L=$OUT/logs; mkdir -p $L
save() { tar -czf $OUT/call5.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.log 2>&1
timeout 400 bash dist/lab/fast_math/run.sh 2 > $L/fast_math.log 2>&1; save
cat $L/fast_math.log
