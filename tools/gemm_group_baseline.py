#!/usr/bin/env python3
"""PyTorch on bench/gemm_group_bench.cc's shapes (issue 15's baselines, measured in the same
run on the GPU machine, whose image has PyTorch): the q/k/v projections as three GEMMs and as
one on concatenated weights, the SwiGLU gate and up and the whole SwiGLU MLP under
torch.compile, and the experts by torch._grouped_mm. Arguments name the cases to run (qkv,
swiglu, swiglu_mlp, experts; all by default).

Prints one line a case: its arguments as gemm_group_bench names them, milliseconds and
TFLOP/s. A case PyTorch refuses prints its error and the script goes on.
"""
import torch
import torch.nn.functional as F

from sdpa_baseline import time_ms  # beside this script, in tools/ and in dist/

K, FFN = 4096, 11008
QKV = [4096, 1024, 1024]
EXPERT_ROWS = {0: [1, 50, 7, 33, 12, 2, 45, 20], 1: [512, 4096, 1024, 2048, 768, 3072, 1536, 640],
               2: [1, 3, 8, 2, 16, 5, 1, 12]}


def bf16(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16) * 0.02


def report(name, label, flops, run):
    try:
        ms, best = time_ms(run)  # sustained, as gemm_group_bench times tessel; best of 5 bursts
        print(f"{name:<28} {label:<34} {ms:9.4f} ms {flops / ms / 1e9:8.1f} TFLOP/s"
              f" (best burst {best:.4f} ms)", flush=True)
    except Exception as e:  # a case this PyTorch does not take
        print(f"{name:<28} {label:<34} refused: {type(e).__name__}: {str(e)[:120]}", flush=True)


def qkv(m):
    x, ws = bf16(m, K), [bf16(K, n) for n in QKV]
    w_cat = torch.cat(ws, dim=1)
    flops = 2.0 * m * sum(QKV) * K
    report(f"BM_Qkv/{m}", "torch, three GEMMs", flops, lambda: [x @ w for w in ws])
    report(f"BM_Qkv/{m}", "torch, concatenated weights", flops, lambda: x @ w_cat)


def swiglu(m):
    x, wg, wu = bf16(m, K), bf16(K, FFN), bf16(K, FFN)
    step = torch.compile(lambda x, wg, wu: F.silu(x @ wg) * (x @ wu))
    report(f"BM_SwiGlu/{m}", "torch.compile", 4.0 * m * FFN * K, lambda: step(x, wg, wu))


def swiglu_mlp(m):
    x, wg, wu, wd = bf16(m, K), bf16(K, FFN), bf16(K, FFN), bf16(FFN, K)
    step = torch.compile(lambda x, wg, wu, wd: (F.silu(x @ wg) * (x @ wu)) @ wd)
    report(f"BM_SwiGluMlp/{m}", "torch.compile", 6.0 * m * FFN * K,
           lambda: step(x, wg, wu, wd))


def experts(sizes):
    rows, k, n = EXPERT_ROWS[sizes], 2048, 1408
    a = bf16(sum(rows), k)
    b = bf16(len(rows), n, k).transpose(1, 2)  # [E, k, n], each expert's weight K-major
    offs = torch.tensor(rows, device="cuda", dtype=torch.int32).cumsum(0, dtype=torch.int32)
    flops = 2.0 * sum(rows) * n * k
    report(f"BM_Experts/{sizes}", "torch._grouped_mm", flops,
           lambda: torch._grouped_mm(a, b, offs=offs))
    xs = list(a.split(rows))
    report(f"BM_Experts/{sizes}", "torch, a loop over the experts", flops,
           lambda: [x @ b[e] for e, x in enumerate(xs)])


if __name__ == "__main__":
    import sys
    cases = sys.argv[1:] or ["qkv", "swiglu", "swiglu_mlp", "experts"]  # which to run
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    for m in (16, 64, 100, 1024, 8192):
        if "qkv" in cases:
            qkv(m)
    for m in (16, 64, 100, 1024, 8192):
        if "swiglu" in cases:
            swiglu(m)
    for m in (64, 1024, 8192):
        if "swiglu_mlp" in cases:
            swiglu_mlp(m)
    for sizes in (0, 1, 2):
        if "experts" in cases:
            experts(sizes)
