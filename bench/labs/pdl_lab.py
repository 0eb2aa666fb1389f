#!/usr/bin/env python3
"""Programmatic dependent launch on any sm_90a repro (`tools/inspect NAME --repro=dir`):
`plain` launches each kernel of the repro's step as the repro does (no overlap); `pdl` as
tessel launches them (each may start while the launch before it ends and waits for it
itself); `pdl_late` the same with every early trigger (tessel_launch_dependents) gone, so
that a launch's blocks take no SM before the grid before it ends. Each times 500 steps
instead of 20; `<name>_times` also prints when each kernel's blocks of the last step passed
their grid wait and ended. The forty-fifth session found the early trigger cost q/k/v at M = 64 (96
blocks on 132 SMs) 17% (bench/RESULTS.md); this asks the same of other kernels.
usage: pdl_lab.py repro.cu outdir; then for each: nvcc -O3 --fmad=false
  -gencode arch=compute_90a,code=sm_90a -diag-suppress 177,550 v.cu -o v -lcuda"""
import os
import re
import sys

LAUNCH = re.compile(r'^(\s*)(\w+)<<<(dim3\(.*\)), (\d+), (\d+)>>>\((.*)\);$', re.M)
TRIGGER = 'asm volatile("griddepcontrol.launch_dependents;" :::);'
# The Hopper GEMM's early trigger as generated (where its walk takes more than one round of
# units, at most two).
GEMM_TRIGGER = """  const int units = tessel_gemm_sm90_walk<C>(tiles_m, tiles, cuts).units();
  if (units > (int)gridDim.x && units <= 2 * (int)gridDim.x) tessel_launch_dependents();
"""


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


WAIT = """__device__ __forceinline__ void tessel_grid_dependency_wait() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
"""

# The device side of `with_block_times`: per grid size (up to 4 kernels of different grids),
# each block's last start past its grid wait and its last end, as %globaltimer reads.
TIMES_DEVICE = """// LAB: each block's start (past its grid wait) and end, per grid size, of the last step.
__device__ unsigned long long lab_start[4][1024], lab_end[4][1024];
__device__ unsigned lab_grids[4];
__device__ __forceinline__ unsigned long long lab_now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ int lab_kind() {
  for (int k = 0; k < 3; ++k) {
    const unsigned old = atomicCAS(&lab_grids[k], 0u, gridDim.x);
    if (old == 0u || old == gridDim.x) return k;
  }
  return 3;
}
"""

TIMES_HOST = """  {  // LAB: the last step's blocks, per kernel (by grid size), from the first start
    static unsigned long long s[4][1024], e[4][1024];
    unsigned grids[4];
    cudaMemcpyFromSymbol(s, lab_start, sizeof(s));
    cudaMemcpyFromSymbol(e, lab_end, sizeof(e));
    cudaMemcpyFromSymbol(grids, lab_grids, sizeof(grids));
    unsigned long long t0 = ~0ull;
    for (int k = 0; k < 4; ++k)
      for (unsigned b = 0; b < grids[k] && b < 1024; ++b) t0 = std::min(t0, s[k][b]);
    for (int k = 0; k < 4 && grids[k] != 0; ++k) {
      const unsigned n = std::min(grids[k], 1024u);
      unsigned long long s0 = ~0ull, s1 = 0, e0 = ~0ull, e1 = 0;
      for (unsigned b = 0; b < n; ++b) {
        s0 = std::min(s0, s[k][b]), s1 = std::max(s1, s[k][b]);
        e0 = std::min(e0, e[k][b]), e1 = std::max(e1, e[k][b]);
      }
      std::printf("LAB grid %u: starts %.2f..%.2f us, ends %.2f..%.2f us\\n", grids[k],
                  (s0 - t0) / 1e3, (s1 - t0) / 1e3, (e0 - t0) / 1e3, (e1 - t0) / 1e3);
    }
  }
"""


def with_block_times(text):
    """`text` printing, after its timing, when each kernel's blocks of the last step passed
    their grid wait and ended (each entry's last statement; a block none of whose threads
    reach it keeps no end)."""
    assert text.count(WAIT) == 1 and text.count('ms /= 500;\n') == 1
    text = text.replace(WAIT, TIMES_DEVICE + WAIT.replace(
        '::: "memory");\n', '::: "memory");\n'
        '  if (threadIdx.x == 0 && blockIdx.x < 1024) lab_start[lab_kind()][blockIdx.x] = lab_now();\n'))
    at = 0
    while (at := text.find('extern "C" __global__', at)) >= 0:
        end = text.index('\n}\n', at)
        text = (text[:end] + '\n  if (blockIdx.x < 1024) atomicMax(&lab_end[lab_kind()][blockIdx.x], '
                'lab_now());  // LAB' + text[end:])
        at = end
    return text.replace('ms /= 500;\n', 'ms /= 500;\n' + TIMES_HOST)


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
        open(os.path.join(out, name + '_times.cu'), 'w').write(with_block_times(body))


if __name__ == '__main__':
    main()
