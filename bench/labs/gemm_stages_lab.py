#!/usr/bin/env python3
"""Variants of a Hopper GEMM repro (`tools/inspect qkv_decode --repro=dir`, or any sm_90a
GEMM) for the forty-first session's measurements (bench/RESULTS.md): `s<N>` the ring of N
stages; `pdl*` launch as tessel does (programmatic dependent launch), with the early
trigger moved; `a_once` loads A only on the ring's first pass (wrong values: what A's reloads cost);
`step48` (q/k/v at M = 64 only) puts tile columns 48 apart, each tile still loading and
storing 64 (130 tiles for 132 SMs instead of 96; overlapping stores of equal values);
`bn128_k4` and `bn256_k8` (a single GEMM of 64-column tiles with each K in 2 slices, such
as `projection_decode`) widen the tiles and cut K finer, for the same number of blocks: B's
boxes then read 256 or 512 contiguous bytes of each row instead of 128. Each
variant times 500 launches instead of 20; with --cold, 100 launches each after a 256 MB
memset that evicts the operands from L2 (events around the GEMM alone), as a model reads
another layer's weights each call.
usage: gemm_stages_lab.py [--cold] repro.cu outdir; then for each: nvcc -O3 --fmad=false
  -gencode arch=compute_90a,code=sm_90a -diag-suppress 177,550 v.cu -o v -lcuda"""
import os
import re
import sys

import pdl_lab

cold = '--cold' in sys.argv
src, out = [a for a in sys.argv[1:] if a != '--cold']
text = open(src).read()
timed = """  cudaEventRecord(start);
  for (int i = 0; i < 20; ++i) run();
  cudaEventRecord(stop);
  REPRO_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  ms /= 20;
"""
assert text.count(timed) == 1
if cold:
    text = text.replace(timed, """  char* flush = nullptr;
  REPRO_CHECK(cudaMalloc(&flush, 256 << 20));
  float ms = 0;
  for (int i = 0; i < 100; ++i) {
    cudaMemsetAsync(flush, i, 256 << 20);
    cudaEventRecord(start);
    run();
    cudaEventRecord(stop);
    REPRO_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms += t;
  }
  ms /= 100;
""")
else:
    text = pdl_lab.more_steps(text)
stages = int(re.search(r'STAGES = (\d+),', text).group(1))
# Every variant reserves all of the block's shared memory (one block an SM either way), so
# that more stages fit.
smem = re.search(r'SMEM = (\d+)[,;]', text).group(1)
text = text.replace(smem, str(227 * 1024))  # the config, the attribute and the launch
os.makedirs(out, exist_ok=True)


def write(name, body):
    open(os.path.join(out, name + '.cu'), 'w').write(body)


write('base', text)
# `pdl`: launched as tessel launches it, allowed to start while the launch before it ends
# (programmatic dependent launch; the kernel waits for it itself).
pdl = pdl_lab.with_pdl(text)
write('pdl', pdl)
# ... with the early trigger as 62b7af6 rules it (where the walk has more units than blocks)
# replaced: `pdl_early` in every grid (before 62b7af6), `pdl_late` in none (the next grid
# starts as this one's blocks end), `pdl_mid` by the producer once it has issued its last
# load (the next grid's blocks may take idle SMs only for the block's last stages).
trigger = pdl_lab.GEMM_TRIGGER
assert pdl.count(trigger) == 1
last_load = """      if (++stage == C::STAGES) stage = 0, phase ^= 1;
    }
  }
}
"""
assert pdl.count(last_load) == 1
pdl_variants = {
    'pdl_early': pdl.replace(trigger, "  tessel_launch_dependents();\n"),
    'pdl_late': pdl.replace(trigger, ""),
    'pdl_mid': pdl.replace(trigger, "").replace(
        last_load, last_load[:-2] + "  tessel_launch_dependents();  // LAB\n}\n"),
}
# ... and `<name>_times`: each also prints when the last launch's blocks passed their grid
# wait and ended (pdl_lab.with_block_times), to tell a late start of some blocks from a
# slower run.
for name, body in pdl_variants.items():
    write(name, body)
    write(name + '_times', pdl_lab.with_block_times(body))
for n in (4, 5, 6, 7, 8, 10, 13, 16):
    if n != stages:
        write(f's{n}', text.replace(f'STAGES = {stages},', f'STAGES = {n},'))

L = 'tessel_gemm_sm90_layout<C>'
arrive = f'  tessel_mbar_arrive_expect_tx(full, {L}::kLoadedBytes);\n'
boxes = '  tessel_gemm_sm90_boxes<C>(a_map, b_map, b2_map, batch, tm, a_shift, tn, kt, load);'
assert text.count(arrive) == 1 and text.count(boxes) == 1
a_once = text.replace(arrive, '').replace(boxes, f'''  if (kt >= C::STAGES) {{  // LAB: A only on the ring's first pass
    tessel_mbar_arrive_expect_tx(full, {L}::kBBytes);
    tessel_gemm_sm90_b_boxes<C>({L}::kABytes, b_map, C::b_batch(batch), tn, kt, load);
    return;
  }}
{arrive}{boxes}''')
write('a_once', a_once)

qkv = '''    if (tn < 64) return 0;
    if (tn < 80) return tn -= 64, 1;
    return tn -= 80, 2;'''
if qkv in text:
    step = text.replace('tn * C::BN', 'tn * C::STEP').replace(qkv, '''    if (tn < 86) return 0;
    if (tn < 108) return tn -= 86, 1;
    return tn -= 108, 2;''')
    step = step.replace('static constexpr int TILES_N = 96;',
                        'static constexpr int STEP = 48;\n  static constexpr int TILES_N = 130;')
    write('step48', step.replace('std::min(96LL,', 'std::min(130LL,'))

config = re.search(r'BN = 64, BK = 64, STAGES = (\d+),.*\n.*\n'
                   r'  static constexpr int K_SLICES = 2, MAX_PIECES = (\d+);.*\n'
                   r'  static constexpr bool CUT_ALL = true;.*\n'
                   r'  static constexpr long long FIXUP_BYTES = (\d+);\n'
                   r'  static constexpr int TILES_N = (\d+);\n'
                   r'  static __device__ int part\(int&\) \{ return 0; \}', text)
if config:
    tiles_n, fixup = int(config.group(4)), config.group(3)
    for bn, slices, most_stages in ((128, 4, 8), (256, 8, 4)):
        wide = text.replace('BN = 64, BK = 64, STAGES = %s,' % config.group(1),
                            'BN = %d, BK = 64, STAGES = %d,' % (bn, min(stages, most_stages)))
        wide = wide.replace('K_SLICES = 2,', 'K_SLICES = %d,' % slices)
        wide = wide.replace('TILES_N = %d;' % tiles_n, 'TILES_N = %d;' % (tiles_n * 64 // bn))
        # pieces: as many as before (tiles x slices); each holds BN / 2 floats a thread
        wide = wide.replace(fixup, str(16 << 20))
        write('bn%d_k%d' % (bn, slices), wide)
