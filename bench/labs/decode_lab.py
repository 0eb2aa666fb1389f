#!/usr/bin/env python3
"""Where the split decode's fixed time goes (docs/plans/split_decode.md, levers 0, 3, 4), on
the `tools/inspect attention_decode --repro` kernel pair, launched as tessel launches them
(programmatic dependent launch) for 500 steps:
  base          the repro as generated (the attention kernel, then the split's combine)
  base_times    the same, printing when each grid's blocks of the last step passed their grid
                wait and ended (pdl_lab's block times)
  nocombine     the attention kernel alone: the most a change to the combine could save
                (where the repro has a combine launch, as before the forty-sixth session)
  prefetch      before its grid wait, the producer asks L2 for its first K and V tile and
                prefetches the three tensor maps (L2 is where writes meet: a prefetch cannot
                leave a stale value, so it may run before the wait)
  s3            three K/V stages instead of two (230,528 of the 232,448 bytes an SM allows)
  s3_prefetch   both
usage: decode_lab.py repro.cu outdir; then nvcc as pdl_lab.py says."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pdl_lab  # noqa: E402

WAIT_IN_KERNEL = '  tessel_grid_dependency_wait();\n  // Read from lane 0'
PREFETCH = '''  if (threadIdx.x == 0) {  // LAB: the first K and V tile into L2, the maps
    asm volatile("prefetch.tensormap [%0];" ::"l"((unsigned long long)&q_map) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"((unsigned long long)&k_map) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"((unsigned long long)&v_map) : "memory");
    const tessel_attention_work w = tessel_attention_sm90_work<C>(blockIdx.x, key_range);
    if (w.kt_begin < w.kt_end && (int)blockIdx.x < L::kWork) {
      const tessel_attention_coords kb = C::k_coords(w.batch), vb = C::v_coords(w.batch);
      for (int j = 0; j < L::kChunks; ++j) {
        asm volatile("cp.async.bulk.prefetch.tensor.5d.L2.global.tile [%0, {%1, %2, %3, %4, %5}];"
                     ::"l"((unsigned long long)&k_map), "r"(64 * j), "r"(w.kt_begin * L::BK),
                     "r"(kb.c2), "r"(kb.c3), "r"(kb.c4) : "memory");
        asm volatile("cp.async.bulk.prefetch.tensor.5d.L2.global.tile [%0, {%1, %2, %3, %4, %5}];"
                     ::"l"((unsigned long long)&v_map), "r"(64 * j), "r"(w.kt_begin * L::BK),
                     "r"(vb.c2), "r"(vb.c3), "r"(vb.c4) : "memory");
      }
    }
  }
'''
STAGES = '  static constexpr int STAGES = C::D == 64 ? 4 : 2;'


def combine_launch(text):
    run = text.index('auto run = [&]() {')
    at = text.index('_combine<<<', run)
    return text.rindex('\n', 0, at) + 1, text.index('\n', at) + 1


def without_combine(text):
    begin, end = combine_launch(text)
    return text[:begin] + text[end:]


def with_prefetch(text):
    assert text.count(WAIT_IN_KERNEL) == 1
    return text.replace(WAIT_IN_KERNEL, PREFETCH + WAIT_IN_KERNEL)


def with_three_stages(text):
    old = text[text.index('SMEM = ') + 7:].split(';')[0]
    new = str(int(old) + 2 * 32768 + 4 * 8)  # two tiles, four barriers
    assert text.count(STAGES) == 1 and int(new) <= 232448
    return text.replace(STAGES, STAGES.replace('? 4 : 2', '? 4 : 3')).replace(old, new)


def main():
    src, out = sys.argv[1:3]
    text = pdl_lab.more_steps(open(src).read())
    os.makedirs(out, exist_ok=True)
    variants = {
        'base': text,
        'prefetch': with_prefetch(text),
        's3': with_three_stages(text),
        's3_prefetch': with_three_stages(with_prefetch(text)),
    }
    if '_combine<<<' in text:  # before the forty-sixth session's merge in the attention kernel
        variants['nocombine'] = without_combine(text)
    for name, body in variants.items():
        pdl = pdl_lab.with_pdl(body)
        open(os.path.join(out, name + '.cu'), 'w').write(pdl)
    open(os.path.join(out, 'base_times.cu'), 'w').write(
        pdl_lab.with_block_times(pdl_lab.with_pdl(text)))


if __name__ == '__main__':
    main()
