#!/usr/bin/env python3
"""Variants of a column-tile normalization repro (codegen/column_normalization.cc, `tiled`):
`tile` stores each result into the thread's own slot of the shared tile it was read from and
the block then stores the tile as 16-byte runs, mirroring the copies in (a thread's 2-byte
stores, a warp 64 bytes an instruction, become a block's 16-byte ones); `cs` marks the 2-byte
stores streaming (st.global.cs); `tile_cs` both.
usage: tile_store_lab.py repro.cu outdir"""
import os
import re
import sys

src, out = sys.argv[1], sys.argv[2]
text = open(src).read()
name = os.path.basename(src)
store = re.compile(r'(\s*for \(int k = 0; k < (\d+); \+\+k\)) if \(valid\) out0\[(.*)\] = '
                   r'(tessel_float_to_bf16\(\w+\[k\]\));')
read = re.compile(r'stage\[\(k \+ (\d+)\) \* (\d+) \+ threadIdx\.x\]')
copy = re.compile(r'tessel_copy_16_async\(stage \+ i \* 8, in0 \+ (.*), true\);')


def tiled(text, streaming):
    lines, lane, threads = text.split('\n'), 0, None
    for i, line in enumerate(lines):
        r = read.search(line)
        if r:
            lane, threads = int(r.group(1)), r.group(2)
        m = store.match(line)
        if m:
            main = len(m.group(1)) - len(m.group(1).lstrip()) <= 3  # not inside a chunk
            at = f'(k + {lane})' if lane and not main else 'k'
            lines[i] = f'{m.group(1)} stage[{at} * THREADS + threadIdx.x] = {m.group(4)};'
    text = '\n'.join(lines).replace('THREADS', threads or '512')
    # The copy loop again, storing: the loop's header and index lines, then the store.
    loop_start = text.index('  for (int i = threadIdx.x;')
    loop_end = text.index('tessel_copy_16_async', loop_start)
    header = text[loop_start:loop_end]
    offset = copy.search(text).group(1)
    rows = re.search(r'first < (\d+) \? first', header).group(1)
    put = ('__stcs((uint4*)(out0 + {0}), *(const uint4*)(stage + i * 8))' if streaming else
           '*(uint4*)(out0 + {0}) = *(const uint4*)(stage + i * 8)').format(offset)
    tail = f'  __syncthreads();  // every result is in the tile\n{header}if (first < {rows}) {put};\n  }}\n'
    end = text.index('\n}\n', text.index('extern "C" __global__'))
    return text[:end] + '\n' + tail + text[end + 1:]


def streaming(text):
    return store.sub(lambda m: f'{m.group(1)} if (valid) __stcs(&out0[{m.group(3)}], {m.group(4)});',
                     text)


os.makedirs(out, exist_ok=True)
for variant, body in [('base', text), ('tile', tiled(text, False)), ('cs', streaming(text)),
                      ('tile_cs', tiled(text, True))]:
    open(os.path.join(out, name.replace('.cu', f'.{variant}.cu')), 'w').write(body)
