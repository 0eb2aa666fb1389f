set -x
mkdir -p $OUT/logs
save() { tar -czf $OUT/call1.tgz -C $OUT logs; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv > $OUT/logs/gpu.txt
for i in 1 2; do dist/lab/staged_columns_lab > $OUT/logs/staged_$i.txt 2>&1; done
save
cat $OUT/logs/*.txt
