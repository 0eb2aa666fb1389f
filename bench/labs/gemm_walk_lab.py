#!/usr/bin/env python3
"""The Hopper GEMM's walk order on any sm_90a GEMM repro (`tools/inspect qkv_8192
--repro=dir`, `swiglu_8192`, ...), for the forty-seventh session's question: why q/k/v at
M = 8192 (1536 tiles of 128 x 256, 11.6 rounds on 132 SMs) runs 1.4% under cuBLASLt on the
weights concatenated while tessel's 8192^3 runs 2% over it. `g<N>`: bands of N tile rows
(GROUP_M: 8 in the generated kernels before this session, 16 since), so the blocks running at once share N tile rows of A
and 132 / N tile columns of B in L2. All launched as tessel launches them (programmatic
dependent launch, pdl_lab.with_pdl), 500 launches back to back (sustained, power-held);
`plain<N>` the same launched plainly (no overlap), `late<N>` with programmatic dependent
launch but no early trigger (the next grid starts as this one's blocks end).
usage: gemm_walk_lab.py repro.cu outdir; then for each: nvcc -O3 --fmad=false
  -gencode arch=compute_90a,code=sm_90a -diag-suppress 177,550 v.cu -o v -lcuda"""
import os
import re
import sys

import pdl_lab

src, out = sys.argv[1:3]
text = pdl_lab.more_steps(open(src).read())
group = int(re.search(r'GROUP_M = (\d+),', text).group(1))
os.makedirs(out, exist_ok=True)
trigger = pdl_lab.GEMM_TRIGGER
pdl = pdl_lab.with_pdl(text)
assert pdl.count(trigger) == 1
variants = {'g': pdl, 'plain': text, 'late': pdl.replace(trigger, '')}
for n in (2, 4, 8, 16, 32):
    for name, body in variants.items():
        if name == 'g' or n in (8, 16):
            body = body.replace(f'GROUP_M = {group},', f'GROUP_M = {n},')
            open(os.path.join(out, f'{name}{n}.cu'), 'w').write(body)
