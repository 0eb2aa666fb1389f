#!/usr/bin/env python3
"""Softmax over 64 rows of 131072 bf16 (`tools/inspect long_rows_bf16 --repro=dir`; issue 13's
row at 58% of the copy): the generated kernel holds each row in a cluster of 8 blocks of 1024
threads, 16 values a thread as floats (31 registers: 2 blocks an SM, so its 512 blocks run in
two waves of clusters). Variants, each timing 500 launches as tessel launches them:
`packed`: the same blocks, the values kept as bf16 pairs (8 registers, not 16), to tell
register pressure from the waves; `w512`: blocks of 512 threads holding 32 values each,
packed, 4 blocks an SM (__launch_bounds__(512, 4)), so that all 512 blocks are resident at
once (262144 threads of the 270336 an H100/H200 holds) and the row is read in one wave
(nvcc 13.0: `packed` 32 registers, no spills; `w512` 32 registers and 120 bytes of spills).
Measured (forty-eighth session, H200): base 2172-2177 GB/s, packed 2057, w512 1505. So two
more, each `packed` with parts taken out (their results wrong, their times the question):
`local`: no exchange through the cluster (each block's own max and sum, no cluster
barrier), what the cluster's barriers and remote reads cost; `stream`: the loads and the
stores alone (each value stored back as loaded), the kernel's memory roofline at this size.
usage: long_rows_lab.py repro.cu outdir; then for each: nvcc -O3 --fmad=false
  -gencode arch=compute_90a,code=sm_90a -diag-suppress 177,550 v.cu -o v -lcuda"""
import os
import re
import sys

import pdl_lab

src, out = sys.argv[1:3]
text = pdl_lab.with_pdl(pdl_lab.more_steps(open(src).read()))
name = re.search(r'__global__ void __launch_bounds__\(1024\) __cluster_dims__\(8, 1, 1\) (\w+)\(',
                 text).group(1)
start = text.index('extern "C" __global__ void __launch_bounds__(1024)')
end = text.index('\n}\n', start) + 3


def kernel(threads, per_thread, min_blocks):
    """The row's part of a block as `per_thread` bf16 values a thread, packed in pairs."""
    part = 131072 // 8
    assert threads * per_thread == part
    words, vecs = per_thread // 2, per_thread // 8
    return f'''extern "C" __global__ void __launch_bounds__({threads}, {min_blocks}) __cluster_dims__(8, 1, 1) {name}(const bf16_t* in0, bf16_t* __restrict__ out0) {{
  tessel_grid_begin();
  // LAB: {threads} threads x {per_thread} values of a part of {part}, kept as bf16 pairs
  __shared__ float scratch_f32[32];
  __shared__ float slot_acc0[2];
  __shared__ float slot_acc1[2];
  // one base address a thread, its vectors {threads * 8} values apart (immediate offsets)
  const index_t first = (index_t)blockIdx.x * {part} + threadIdx.x * 8;
  const bf16_t* in = in0 + first;
  bf16_t* out = out0 + first;
  unsigned w[{words}];
  #pragma unroll
  for (int v = 0; v < {vecs}; ++v) {{
    const auto vec = tessel_load_vec<unsigned, 4>((const unsigned*)(in + v * {threads * 8}));
    #pragma unroll
    for (int j = 0; j < 4; ++j) w[4 * v + j] = vec.v[j];
  }}
  float acc0 = __int_as_float(0xff800000);
  #pragma unroll
  for (int k = 0; k < {per_thread}; ++k) acc0 = tessel_max(acc0, tessel_bf16_lane(w, k));
  const float max0 = tessel_cluster_reduce<8>(tessel_block_reduce(acc0, tessel_max_op(), __int_as_float(0xff800000), scratch_f32), tessel_max_op(), slot_acc0, 1);
  float acc1 = 0.0f;
  #pragma unroll
  for (int k = 0; k < {per_thread}; ++k) acc1 = acc1 + tessel_exp_term(tessel_bf16_lane(w, k) - max0);
  const float sum0 = tessel_cluster_reduce<8>(tessel_block_reduce(acc1, tessel_sum_op(), 0.0f, scratch_f32), tessel_sum_op(), slot_acc1, 1);
  tessel_cluster_arrive();  // this block's reads of the others' slots are done
  const float rcp0 = __frcp_rn(sum0);
  #pragma unroll
  for (int v = 0; v < {vecs}; ++v) {{
    tessel_vec<bf16_t, 8> vec;
    #pragma unroll
    for (int j = 0; j < 8; ++j) {{
      const float e = tessel_exp_term(tessel_bf16_lane(w, 8 * v + j) - max0);
      vec.v[j] = tessel_float_to_bf16(tessel_round_bf16(e * rcp0));
    }}
    tessel_store_vec<bf16_t, 8>(out + v * {threads * 8}, vec);
  }}
  tessel_cluster_wait();  // no block leaves while another may read its slots
}}
'''


def local(kernel_text):
    """The kernel without its cluster exchange: each block's own max and sum."""
    text = re.sub(r'tessel_cluster_reduce<8>\((tessel_block_reduce\(.*?scratch_f32\)), '
                  r'tessel_\w+_op\(\), slot_acc\d, 1\)', r'\1', kernel_text)
    text = re.sub(r'\n *tessel_cluster_(arrive|wait)\(\);[^\n]*', '', text)
    assert 'tessel_cluster' not in text, 'the exchange is left'
    return text


def stream(kernel_text):
    """The kernel's loads and stores alone: each value stored back as it was loaded."""
    text = local(kernel_text)
    text = re.sub(r'const float e = tessel_exp_term\(tessel_bf16_lane\(w, (8 \* v \+ j)\) - max0\);',
                  r'const float e = tessel_bf16_lane(w, \1);', text)
    text = text.replace('tessel_round_bf16(e * rcp0)', 'e')
    assert 'rcp0)' not in text, 'the normalization is left'
    return text


def online(pair_per_thread):
    """One cluster exchange, not two: each block's max m and sum s of exp(x - m) merged across
    the cluster as pairs (S = sum of s exp(m - M)), each value's exp(x - m) then scaled by
    exp(m - M) / S. `pair_per_thread`: each thread's own pair, one block reduction of pairs
    (else the block's max, then its sum: two)."""
    part = 131072 // 8
    body = [f'extern "C" __global__ void __launch_bounds__(1024) __cluster_dims__(8, 1, 1) {name}(const bf16_t* in0, bf16_t* __restrict__ out0) {{',
            '  tessel_grid_begin();',
            f'  // LAB: one exchange of (max, sum) pairs{", a pair a thread" if pair_per_thread else ""}',
            '  __shared__ float scratch_m[32], scratch_s[32];',
            '  __shared__ float slot_m[2], slot_s[2];',
            f'  const index_t first = (index_t)blockIdx.x * {part} + threadIdx.x * 8;',
            '  const bf16_t* in = in0 + first;',
            '  bf16_t* out = out0 + first;',
            '  float e[16];',
            '  #pragma unroll',
            '  for (int v = 0; v < 2; ++v) {',
            '    const auto vec = tessel_load_vec<unsigned, 4>((const unsigned*)(in + v * 8192));',
            '    #pragma unroll',
            '    for (int j = 0; j < 8; ++j) e[8 * v + j] = tessel_bf16_lane(vec.v, j);',
            '  }',
            '  const float ninf = __int_as_float(0xff800000);',
            '  float m = ninf;',
            '  #pragma unroll',
            '  for (int k = 0; k < 16; ++k) m = tessel_max(m, e[k]);',
            '  auto combine = [](float& m, float& s, float m2, float s2) {',
            '    const float m1 = tessel_max(m, m2);',
            '    s = (s == 0 ? s : s * tessel_exp_term(m - m1)) + (s2 == 0 ? s2 : s2 * tessel_exp_term(m2 - m1));',
            '    m = m1;',
            '  };']
    if not pair_per_thread:
        body.append('  m = tessel_block_reduce(m, tessel_max_op(), ninf, scratch_m);')
    body += ['  const float h = m == ninf ? 0.0f : m;  // all -inf: terms 0, not NaN',
             '  float s = 0.0f;',
             '  #pragma unroll',
             '  for (int k = 0; k < 16; ++k) { e[k] = tessel_exp_term(e[k] - h); s += e[k]; }']
    if pair_per_thread:
        body.append('  float bm = m, bs = s;')
        body.append('  tessel_block_reduce_pair(bm, bs, combine, ninf, scratch_m, scratch_s);')
        body.append('  if (threadIdx.x == 0) { slot_m[0] = bm; slot_s[0] = bs; }')
    else:
        body.append('  s = tessel_block_reduce(s, tessel_sum_op(), 0.0f, scratch_s);')
        body.append('  if (threadIdx.x == 0) { slot_m[0] = m; slot_s[0] = s; }')
    body += ['  tessel_cluster_sync();',
             '  if (threadIdx.x == 0) {',
             '    float pm[8], ps[8];',
             '    #pragma unroll',
             '    for (int b = 0; b < 8; ++b) { pm[b] = tessel_cluster_load(slot_m, b); ps[b] = tessel_cluster_load(slot_s, b); }',
             '    float M = pm[0], S = ps[0];',
             '    #pragma unroll',
             '    for (int b = 1; b < 8; ++b) combine(M, S, pm[b], ps[b]);',
             '    slot_m[1] = M; slot_s[1] = S;',
             '  }',
             '  __syncthreads();',
             '  tessel_cluster_arrive();  // this block\'s reads of the others\' slots are done',
             '  const float c = tessel_exp_term(h - slot_m[1]) * __frcp_rn(slot_s[1]);',
             '  #pragma unroll',
             '  for (int v = 0; v < 2; ++v) {',
             '    tessel_vec<bf16_t, 8> vec;',
             '    #pragma unroll',
             '    for (int j = 0; j < 8; ++j) vec.v[j] = tessel_float_to_bf16(tessel_round_bf16(e[8 * v + j] * c));',
             '    tessel_store_vec<bf16_t, 8>(out + v * 8192, vec);',
             '  }',
             '  tessel_cluster_wait();  // no block leaves while another may read its slots',
             '}', '']
    return '\n'.join(body)


def staged():
    """A cluster of 4 blocks a row, each thread 32 values: 16 in registers as floats, 16 as
    bf16 in shared memory (two 16-byte cp.async a thread, 32 KB a block), so that the 256
    blocks all run in one wave (264 places: 2 a SM) rather than 512 blocks in two."""
    return f'''extern "C" __global__ void __launch_bounds__(1024, 2) __cluster_dims__(4, 1, 1) {name}(const bf16_t* in0, bf16_t* __restrict__ out0) {{
  tessel_grid_begin();
  // LAB: a part of 32768 a block: 16 values a thread held, 16 staged in shared memory
  __shared__ float scratch_f32[32];
  __shared__ float slot_acc0[2];
  __shared__ float slot_acc1[2];
  __shared__ __align__(16) unsigned stage[2][1024][4];
  const index_t first = (index_t)blockIdx.x * 32768 + threadIdx.x * 8;
  const bf16_t* in = in0 + first;
  bf16_t* out = out0 + first;
  #pragma unroll
  for (int v = 0; v < 2; ++v) {{
    const unsigned dst = (unsigned)__cvta_generic_to_shared(&stage[v][threadIdx.x][0]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + (v + 2) * 8192) : "memory");
  }}
  asm volatile("cp.async.commit_group;" ::: "memory");
  float x[16];
  #pragma unroll
  for (int v = 0; v < 2; ++v) {{
    const auto vec = tessel_load_vec<unsigned, 4>((const unsigned*)(in + v * 8192));
    #pragma unroll
    for (int j = 0; j < 8; ++j) x[8 * v + j] = tessel_bf16_lane(vec.v, j);
  }}
  asm volatile("cp.async.wait_all;" ::: "memory");  // a thread reads back only its own
  float acc0 = __int_as_float(0xff800000);
  #pragma unroll
  for (int k = 0; k < 16; ++k) acc0 = tessel_max(acc0, x[k]);
  #pragma unroll
  for (int v = 0; v < 2; ++v) {{
    const uint4 q = *(const uint4*)&stage[v][threadIdx.x][0];
    const unsigned u[4] = {{q.x, q.y, q.z, q.w}};
    #pragma unroll
    for (int j = 0; j < 8; ++j) acc0 = tessel_max(acc0, tessel_bf16_lane(u, j));
  }}
  const float max0 = tessel_cluster_reduce<4>(tessel_block_reduce(acc0, tessel_max_op(), __int_as_float(0xff800000), scratch_f32), tessel_max_op(), slot_acc0, 1);
  float acc1 = 0.0f;
  #pragma unroll
  for (int k = 0; k < 16; ++k) {{ x[k] = tessel_exp_term(x[k] - max0); acc1 += x[k]; }}
  #pragma unroll
  for (int v = 0; v < 2; ++v) {{
    const uint4 q = *(const uint4*)&stage[v][threadIdx.x][0];
    const unsigned u[4] = {{q.x, q.y, q.z, q.w}};
    #pragma unroll
    for (int j = 0; j < 8; ++j) acc1 += tessel_exp_term(tessel_bf16_lane(u, j) - max0);
  }}
  const float sum0 = tessel_cluster_reduce<4>(tessel_block_reduce(acc1, tessel_sum_op(), 0.0f, scratch_f32), tessel_sum_op(), slot_acc1, 1);
  tessel_cluster_arrive();  // this block's reads of the others' slots are done
  const float rcp0 = __frcp_rn(sum0);
  #pragma unroll
  for (int v = 0; v < 4; ++v) {{
    tessel_vec<bf16_t, 8> vec;
    if (v < 2) {{
      #pragma unroll
      for (int j = 0; j < 8; ++j) vec.v[j] = tessel_float_to_bf16(tessel_round_bf16(x[8 * v + j] * rcp0));
    }} else {{
      const uint4 q = *(const uint4*)&stage[v - 2][threadIdx.x][0];
      const unsigned u[4] = {{q.x, q.y, q.z, q.w}};
      #pragma unroll
      for (int j = 0; j < 8; ++j) vec.v[j] = tessel_float_to_bf16(tessel_round_bf16(tessel_exp_term(tessel_bf16_lane(u, j) - max0) * rcp0));
    }}
    tessel_store_vec<bf16_t, 8>(out + v * 8192, vec);
  }}
  tessel_cluster_wait();  // no block leaves while another may read its slots
}}
'''

os.makedirs(out, exist_ok=True)
open(os.path.join(out, 'base.cu'), 'w').write(text)
open(os.path.join(out, 'packed.cu'), 'w').write(text[:start] + kernel(1024, 16, 2) + text[end:])
w512 = text[:start] + kernel(512, 32, 4) + text[end:]
open(os.path.join(out, 'w512.cu'), 'w').write(w512.replace('dim3(512, 1, 1), 1024', 'dim3(512, 1, 1), 512').replace('config.blockDim = dim3(1024)', 'config.blockDim = dim3(512)'))
packed = kernel(1024, 16, 2)
open(os.path.join(out, 'local.cu'), 'w').write(text[:start] + local(packed) + text[end:])
open(os.path.join(out, 'stream.cu'), 'w').write(text[:start] + stream(packed) + text[end:])
open(os.path.join(out, 'online.cu'), 'w').write(text[:start] + online(False) + text[end:])
open(os.path.join(out, 'online1.cu'), 'w').write(text[:start] + online(True) + text[end:])
open(os.path.join(out, 'staged.cu'), 'w').write((text[:start] + staged() + text[end:]).replace('dim3(512, 1, 1)', 'dim3(256, 1, 1)'))
