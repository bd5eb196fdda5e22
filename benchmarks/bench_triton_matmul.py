"""Triton's f16 matmul (wgmma.mma_async, cp.async pipeline) on the engine: emulated GFLOP/s with the
compiled tensor-core numerics (default) and with the NumPy reference path (launch jit=False),
whose outputs must be the same bits.

    python benchmarks/bench_triton_matmul.py [--sizes 512,1024] [--no-reference] [--warmup]

The PTX is benchmarks/triton/matmul_f16_wgmma.ptx (made by benchmarks/triton/gen_matmul.py with
pip's triton for GPUTarget("cuda", 90, 32); no GPU needed). --warmup also measures the compiled
kernels' one-time cost in fresh processes: compiling them (empty Numba cache) and loading them
from the on-disk cache. docs/performance.md has the figures of this machine.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
# the ptxvm to measure: this checkout's (default), or another tree's (PTXVM_TREE, for before/after runs)
sys.path.insert(0, os.environ.get("PTXVM_TREE") or str(HERE.parent))
# one process: these are single-process figures (CTA-parallel launches, ptxvm/parallel, are
# measured by bench_parallel.py; the CPU time of worker processes is not this process's)
os.environ.setdefault("PTXVM_WORKERS", "1")

import ptxvm  # noqa: E402

PTX = HERE / "triton" / "matmul_f16_wgmma.ptx"
BLOCK, THREADS, SHARED = 128, 128, 98304   # BLOCK_M = BLOCK_N (gen_matmul.py), 4 warps, 3 stages


def inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n)).astype(np.float16)
    b = rng.standard_normal((n, n)).astype(np.float16)
    return a, b


def run(kernel, a, b, jit=None):
    """(C, wall seconds, CPU seconds of this process) of one launch. On a shared machine the CPU
    seconds are the steadier figure."""
    n = a.shape[0]
    c = np.zeros((n, n), np.float16)
    t, cpu = time.perf_counter(), time.process_time()
    kernel.launch(((n // BLOCK) ** 2, 1, 1), (THREADS, 1, 1), [a, b, c, n, n, n, n, n, n, 0, 0],
                  shared_mem=SHARED, jit=jit)
    return c, time.perf_counter() - t, time.process_time() - cpu


def kernel():
    return ptxvm.loads(PTX.read_text()).kernel("matmul_kernel")


def warmup_seconds(cache_dir: str) -> float:
    """CPU seconds of the first f16 tensor-core step in a fresh process: importing Numba and
    compiling the kernel (empty cache_dir) or loading it from the on-disk cache."""
    code = ("import sys, time; sys.path.insert(0, %r); import numpy as np; from ptxvm.numerics import mma; "
            "z = np.zeros((1, 16, 16), np.uint16); t = time.process_time(); "
            "mma.hmma(z, z[:, :, :8], np.zeros((1, 16, 8), np.uint32), 'f16', 'f16'); "
            "print(time.process_time() - t)") % str(HERE.parent)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="512")
    ap.add_argument("--no-reference", action="store_true", help="skip the (slow) NumPy reference path")
    ap.add_argument("--warmup", action="store_true", help="measure compile / cache-load time in fresh processes")
    ap.add_argument("--save", metavar="NPZ", help="write each size's output (compiled path) to this file")
    opt = ap.parse_args()
    saved = {}
    k = kernel()
    run(k, *inputs(128))  # parse/lower caches and the compiled kernels, out of the timings
    print(f"{'size':>6} {'path':>10} {'wall s':>8} {'CPU s':>8} {'GFLOP/s (CPU)':>14}  check")
    for n in (int(s) for s in opt.sizes.split(",")):
        a, b = inputs(n)
        flops = 2.0 * n ** 3
        c_fast, w_fast, t_fast = run(k, a, b)
        saved[f"matmul{n}"] = c_fast
        ref = a.astype(np.float32) @ b.astype(np.float32)
        err = float(np.max(np.abs(c_fast.astype(np.float32) - ref) / (np.abs(ref) + 1.0)))
        print(f"{n:>6} {'compiled':>10} {w_fast:8.2f} {t_fast:8.2f} {flops / t_fast / 1e9:14.3f}  "
              f"max rel. error vs f32 matmul {err:.1e}")
        if not opt.no_reference:
            c_ref, w_ref, t_ref = run(k, a, b, jit=False)
            same = np.array_equal(c_ref.view(np.uint16), c_fast.view(np.uint16))
            print(f"{n:>6} {'numpy':>10} {w_ref:8.2f} {t_ref:8.2f} {flops / t_ref / 1e9:14.3f}  "
                  f"{'same bits' if same else 'OUTPUTS DIFFER'}; speed-up {t_ref / t_fast:.1f}x (CPU)")
            if not same:
                sys.exit(1)
    if opt.save:
        np.savez(opt.save, **saved)
    if opt.warmup:
        with tempfile.TemporaryDirectory() as d:
            cold = warmup_seconds(d)
            warm = warmup_seconds(d)
        print(f"JIT warm-up, first tensor-core step of a process (CPU s, Numba import included): "
              f"{cold:.2f} compiling (empty cache), {warm:.2f} loading from the on-disk cache")


if __name__ == "__main__":
    main()
