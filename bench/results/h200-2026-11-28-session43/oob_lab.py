#!/usr/bin/env python3
# Session 43 lab: the decode GEMM's kernel for 64-row tiles with rows as an argument (K cut at
# run time), at rows 65..128, with A's and the output's TMA maps holding `rows` rows or 128.
import re, sys
src, out = sys.argv[1:]
t = open(src).read()
name = re.search(r'__global__ void __launch_bounds__\(384, 1\) (G_\w+)\(', t).group(1)
t = t.replace('static constexpr int K_SLICES = 2, MAX_PIECES = 128;', 'static constexpr int K_SLICES = 2, MAX_PIECES = 132;')
t = t.replace('static constexpr bool CUT_ALL = true;', 'static constexpr bool CUT_ALL = false;')
t = t.replace('FIXUP_BYTES = 2098176', 'FIXUP_BYTES = 2163968')
t = t.replace('2098176LL', '2163968LL')
t = t.replace('tessel_gemm_sm90_no_epilogue{}, 64,', 'tessel_gemm_sm90_no_epilogue{}, REPRO_M,')
t = t.replace('262144LL', '524288LL')
# A (map0) and out (map2): dims {4096, ROWS, 1}, batch stride of 128 rows.
parts = t.split('CUtensorMap map')
for i, p in enumerate(parts):
    if p.startswith('0;'):
        parts[i] = p.replace('{4096, 64, 1}', '{4096, REPRO_A_ROWS, 1}').replace('{8192, 524288}', '{8192, 1048576}')
    if p.startswith('2;'):
        parts[i] = p.replace('{4096, 64, 1}', '{4096, REPRO_M, 1}').replace('{8192, 524288}', '{8192, 1048576}')
t = 'CUtensorMap map'.join(parts)
t = t.replace('SMEM = 140456', 'SMEM = 140504').replace('140456', '140504')
t = t.replace('std::min(128LL, (long long)sms * 1)', '132')
timed = """  cudaEventRecord(start);
  for (int i = 0; i < 20; ++i) run();
  cudaEventRecord(stop);
  REPRO_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  ms /= 20;
"""
assert timed in t
t = t.replace(timed, """  char* flush = nullptr;
  REPRO_CHECK(cudaMalloc(&flush, 256 << 20));
  float ms = 0;
  for (int i = 0; i < 200; ++i) {
    cudaMemsetAsync(flush, i, 256 << 20);
    cudaEventRecord(start);
    run();
    cudaEventRecord(stop);
    REPRO_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    if (i >= 100) ms += t;
  }
  ms /= 100;
  std::printf("M=%d A map rows %d: ", REPRO_M, REPRO_A_ROWS);
""")
open(out, 'w').write(t)
