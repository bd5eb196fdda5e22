"""Triton's flash-attention forward pass (f16, head dim 64; wgmma.mma_async for Q K^T and P V, a
cp.async pipeline for the K and V tiles) on the engine: emulated GFLOP/s with the compiled paths
(default) and with the NumPy reference paths (launch jit=False), whose outputs must be the same
bits; then the attention kernel recorded on an H200 (tests/goldens/frontdoor/triton.npz) replayed
on both paths, which must give the recorded bits.

    python benchmarks/bench_triton_attention.py [--sizes 512,1024] [--heads 4] [--no-reference]

The PTX is benchmarks/triton/attention_fwd_f16_wgmma.ptx (made by
benchmarks/triton/gen_attention.py with pip's triton for GPUTarget("cuda", 90, 32); no GPU needed).
GFLOP/s = 4 * heads * N^2 * D / CPU seconds (two N x N x D matrix products per head; the softmax
is not counted). docs/performance.md has the figures of this machine.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
# the ptxvm to measure: this checkout's (default), or another tree's (PTXVM_TREE, for before/after runs)
sys.path.insert(0, os.environ.get("PTXVM_TREE") or str(HERE.parent))
# one process: these are single-process figures (CTA-parallel launches, ptxvm/parallel, are
# measured by bench_parallel.py; the CPU time of worker processes is not this process's)
os.environ.setdefault("PTXVM_WORKERS", "1")

import ptxvm  # noqa: E402

PTX = HERE / "triton" / "attention_fwd_f16_wgmma.ptx"
GOLDEN = HERE.parent / "tests" / "goldens" / "frontdoor" / "triton.npz"
D, BLOCK_M, THREADS, SHARED = 64, 128, 128, 65536    # gen_attention.py: HEAD_DIM, BLOCK_M, 4 warps
SM_SCALE = 0.125                                     # 1 / sqrt(D)


def inputs(heads: int, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((heads, n, D)).astype(np.float16) for _ in range(3)]


def run(kernel, q, k, v, jit=None):
    """(O, wall seconds, CPU seconds of this process) of one launch."""
    heads, n, _ = q.shape
    o = np.zeros_like(q)
    t, cpu = time.perf_counter(), time.process_time()
    kernel.launch((n // BLOCK_M, heads, 1), (THREADS, 1, 1), [q, k, v, o, np.float32(SM_SCALE), n, 0, 0],
                  shared_mem=SHARED, jit=jit)
    return o, time.perf_counter() - t, time.process_time() - cpu


def kernel():
    return ptxvm.loads(PTX.read_text()).kernel("attn_fwd")


def reference(q, k, v):
    s = np.einsum("hnd,hmd->hnm", q.astype(np.float32), k.astype(np.float32)) * SM_SCALE
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("hnm,hmd->hnd", p / p.sum(-1, keepdims=True), v.astype(np.float32))


def golden_replay(jit):
    """Differing outputs of the H200-recorded attention kernel (tests/frontdoor/triton_cases.py,
    attention_fwd) replayed from the PTX Triton made on the H200; None without the golden."""
    if not GOLDEN.exists():
        return None
    z = np.load(GOLDEN)
    meta = json.loads(bytes(z["meta"]).decode())
    if meta["status"].get("attention_fwd") != "ok":
        return None
    k = ptxvm.loads(bytes(z["attention_fwd.ptx"]).decode()).kernel("attention_fwd")
    q, kk, v = (z[f"attention_fwd.arg{i}"].copy() for i in range(3))
    o = np.zeros_like(z["attention_fwd.arg3"])
    k.launch((2, 2, 1), (128, 1, 1), [q, kk, v, o, 128, np.float32(0.125), 0, 0],
             shared_mem=meta["kernels"]["attention_fwd"]["shared"], jit=jit)
    return int((o.view(np.uint16) != z["attention_fwd.arg3"].view(np.uint16)).sum())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="512", help="sequence lengths, multiples of 128")
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--no-reference", action="store_true", help="skip the (slow) NumPy reference path")
    ap.add_argument("--save", metavar="NPZ", help="write each size's output (compiled path) to this file")
    opt = ap.parse_args()
    saved = {}
    k = kernel()
    run(k, *inputs(1, 128))  # parse/lower caches and the compiled kernels, out of the timings
    print(f"{'size':>10} {'path':>10} {'wall s':>8} {'CPU s':>8} {'GFLOP/s (CPU)':>14}  check")
    for n in (int(s) for s in opt.sizes.split(",")):
        q, kk, v = inputs(opt.heads, n)
        flops = 4.0 * opt.heads * n * n * D
        o_fast, w_fast, t_fast = run(k, q, kk, v)
        saved[f"attention{n}"] = o_fast
        ref = reference(q, kk, v)
        err = float(np.max(np.abs(o_fast.astype(np.float32) - ref)))
        label = f"{opt.heads}x{n}x{D}"
        print(f"{label:>10} {'compiled':>10} {w_fast:8.2f} {t_fast:8.2f} {flops / t_fast / 1e9:14.3f}  "
              f"max abs. error vs f32 softmax attention {err:.1e}", flush=True)
        if not opt.no_reference:
            o_ref, w_ref, t_ref = run(k, q, kk, v, jit=False)
            same = np.array_equal(o_ref.view(np.uint16), o_fast.view(np.uint16))
            print(f"{label:>10} {'numpy':>10} {w_ref:8.2f} {t_ref:8.2f} {flops / t_ref / 1e9:14.3f}  "
                  f"{'same bits' if same else 'OUTPUTS DIFFER'}; speed-up {t_ref / t_fast:.1f}x (CPU)", flush=True)
            if not same:
                sys.exit(1)
    if opt.save:
        np.savez(opt.save, **saved)
    for jit, path in ((None, "compiled"), (False, "numpy")):
        if jit is False and opt.no_reference:
            continue
        bad = golden_replay(jit)
        if bad is None:
            print("no H200 attention golden in tests/goldens/frontdoor/triton.npz: replay skipped")
            break
        print(f"H200 golden attention_fwd (2x128x64) replayed, {path} path: "
              f"{'same bits as the H200' if bad == 0 else f'{bad} outputs DIFFER from the H200'}")
        if bad:
            sys.exit(1)


if __name__ == "__main__":
    main()
