#!/usr/bin/env python3
"""Programmatic dependent launch on any sm_90a repro (`tools/inspect NAME --repro=dir`):
`plain` launches each kernel of the repro's step as the repro does (no overlap); `pdl` as
tessel launches them (each may start while the launch before it ends and waits for it
itself); `pdl_late` the same with every early trigger (tessel_launch_dependents) gone, so
that a launch's blocks take no SM before the grid before it ends. Each times 500 steps
instead of 20. The forty-fifth session found the early trigger cost q/k/v at M = 64 (96
blocks on 132 SMs) 17% (bench/RESULTS.md); this asks the same of other kernels.
usage: pdl_lab.py repro.cu outdir; then for each: nvcc -O3 --fmad=false
  -gencode arch=compute_90a,code=sm_90a -diag-suppress 177,550 v.cu -o v -lcuda"""
import os
import re
import sys

LAUNCH = re.compile(r'^(\s*)(\w+)<<<(dim3\(.*\)), (\d+), (\d+)>>>\((.*)\);$', re.M)
TRIGGER = 'asm volatile("griddepcontrol.launch_dependents;" :::);'


def with_pdl(text):
    """`text` with each <<<>>> launch issued by cudaLaunchKernelEx, allowed to overlap."""
    def rewrite(m):
        pad, kernel, grid, block, smem, args = m.groups()
        return (f'{pad}{{\n'
                f'{pad}  cudaLaunchAttribute overlap[1];\n'
                f'{pad}  overlap[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;\n'
                f'{pad}  overlap[0].val.programmaticStreamSerializationAllowed = 1;\n'
                f'{pad}  cudaLaunchConfig_t config = {{}};\n'
                f'{pad}  config.gridDim = {grid};\n'
                f'{pad}  config.blockDim = dim3({block});\n'
                f'{pad}  config.dynamicSmemBytes = {smem};\n'
                f'{pad}  config.attrs = overlap;\n'
                f'{pad}  config.numAttrs = 1;\n'
                f'{pad}  cudaLaunchKernelEx(&config, {kernel}, {args});\n'
                f'{pad}}}')
    run = text.index('auto run = [&]() {')
    end = text.index('\n  }\n', run)
    body, n = LAUNCH.subn(rewrite, text[run:end])
    assert n > 0, 'no launch in run()'
    return text[:run] + body + text[end:]


def more_steps(text):
    """Times 500 steps instead of the repro's 20."""
    assert text.count('i < 20; ++i) run();') == 1 and text.count('ms /= 20;') == 1
    return text.replace('i < 20; ++i) run();', 'i < 500; ++i) run();').replace(
        'ms /= 20;', 'ms /= 500;')


def main():
    src, out = sys.argv[1:3]
    text = more_steps(open(src).read())
    assert text.count(TRIGGER) == 1
    os.makedirs(out, exist_ok=True)
    pdl = with_pdl(text)
    for name, body in (('plain', text), ('pdl', pdl), ('pdl_late', pdl.replace(TRIGGER, ''))):
        open(os.path.join(out, name + '.cu'), 'w').write(body)


if __name__ == '__main__':
    main()
