"""Engine throughput in thread-instructions per second on four nvcc kernels.

    python benchmarks/bench_engine.py [--quick] [--repeat 3]

vector add (2^22 elements), an FMA loop (Horner, degree 64), a divergent loop (Collatz steps),
and a 16x16-tiled SGEMM in shared memory; prints each figure and their geometric mean. The rate
is thread-instructions per CPU second of the launch (time.process_time, the fastest of --repeat
launches after a warm-up one): on a shared machine the steadier figure; the launch's own wall
clock (LaunchStats.seconds) is printed next to it. PTXVM_TREE=DIR measures the ptxvm of another
checkout (for before/after figures).
"""
from __future__ import annotations

import argparse
import math
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
# the ptxvm to measure: this checkout's (default), or another tree's (PTXVM_TREE, for before/after runs)
sys.path.insert(0, os.environ.get("PTXVM_TREE") or str(ROOT))

import ptxvm  # noqa: E402

PTX = ROOT / "tests" / "corpus" / "ptx"


def load(stem):
    return ptxvm.load(PTX / f"{stem}.sm_90.ptx")


class _Timed:
    """Wraps a kernel: launch() also records the CPU seconds of the launch in `cpu`."""

    def __init__(self, kernel):
        self.kernel, self.cpu = kernel, 0.0

    def launch(self, *args, **kw):
        t = time.process_time()
        stats = self.kernel.launch(*args, **kw)
        self.cpu = time.process_time() - t
        stats.cpu_seconds = self.cpu
        return stats

    def __getitem__(self, name):
        return _Timed(self.kernel[name])


def vector_add(scale):
    n = (1 << 22) // scale
    a = np.arange(n, dtype=np.float32)
    b = np.ones(n, np.float32)
    c = np.zeros(n, np.float32)
    return _Timed(load("vector_add"))["vector_add_f32"].launch((n + 255) // 256, 256, [a, b, c, np.int32(n)])


def fma_loop(scale):
    n = (1 << 18) // scale
    x = np.linspace(-1, 1, n, dtype=np.float32)
    coeffs = np.linspace(0.5, 1.5, 65, dtype=np.float32)
    y = np.zeros(n, np.float32)
    return _Timed(load("fma_loop"))["fma_horner"].launch((n + 255) // 256, 256, [x, coeffs, np.int32(64), y, np.int32(n)])


def collatz(scale):
    n = (1 << 16) // scale
    start = np.random.default_rng(0).integers(1, 1 << 20, n).astype(np.uint64)
    steps = np.zeros(n, np.int32)
    return _Timed(load("collatz"))["collatz_steps"].launch((n + 255) // 256, 256, [start, steps, np.int32(n)])


def sgemm(scale):
    m = 256 // (2 if scale > 1 else 1)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, m)).astype(np.float32)
    b = rng.standard_normal((m, m)).astype(np.float32)
    c = np.zeros((m, m), np.float32)
    args = [np.int32(m), np.int32(m), np.int32(m), np.float32(1), a, b, np.float32(0), c]
    return _Timed(load("sgemm"))["sgemm_tiled16"].launch((m // 16, m // 16), (16, 16), args)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller problems")
    ap.add_argument("--repeat", type=int, default=3, help="timed launches per kernel (the fastest counts)")
    opt = ap.parse_args()
    scale = 8 if opt.quick else 1
    rates = []
    for bench in (vector_add, fma_loop, collatz, sgemm):
        bench(scale * 8)  # parse, lowering and first-use costs out of the timings
        runs = [bench(scale) for _ in range(max(1, opt.repeat))]
        best = min(runs, key=lambda s: s.cpu_seconds)
        rate = best.thread_instructions / best.cpu_seconds
        rates.append(rate)
        print(f"{bench.__name__:12s} {best.thread_instructions:>14,} thread-instr  {best.cpu_seconds:7.3f} CPU s "
              f"(wall {best.seconds:.3f} s)  {rate / 1e6:8.1f} M thread-instr/s")
    geo = math.exp(sum(math.log(r) for r in rates) / len(rates))
    print(f"{'geomean':12s} {geo / 1e6:.1f} M thread-instr/s")


if __name__ == "__main__":
    main()
