"""Engine throughput in thread-instructions per second on four nvcc kernels.

    python benchmarks/bench_engine.py [--quick]

vector add (2^22 elements), an FMA loop (Horner, degree 64), a divergent loop (Collatz steps),
and a 16x16-tiled SGEMM in shared memory; prints each figure and their geometric mean.
"""
from __future__ import annotations

import argparse
import math
import pathlib
import time

import numpy as np

import ptxvm

PTX = pathlib.Path(__file__).resolve().parents[1] / "tests" / "corpus" / "ptx"


def load(stem):
    return ptxvm.load(PTX / f"{stem}.sm_90.ptx")


def vector_add(scale):
    n = (1 << 22) // scale
    a = np.arange(n, dtype=np.float32)
    b = np.ones(n, np.float32)
    c = np.zeros(n, np.float32)
    return load("vector_add")["vector_add_f32"].launch((n + 255) // 256, 256, [a, b, c, np.int32(n)])


def fma_loop(scale):
    n = (1 << 18) // scale
    x = np.linspace(-1, 1, n, dtype=np.float32)
    coeffs = np.linspace(0.5, 1.5, 65, dtype=np.float32)
    y = np.zeros(n, np.float32)
    return load("fma_loop")["fma_horner"].launch((n + 255) // 256, 256, [x, coeffs, np.int32(64), y, np.int32(n)])


def collatz(scale):
    n = (1 << 16) // scale
    start = np.random.default_rng(0).integers(1, 1 << 20, n).astype(np.uint64)
    steps = np.zeros(n, np.int32)
    return load("collatz")["collatz_steps"].launch((n + 255) // 256, 256, [start, steps, np.int32(n)])


def sgemm(scale):
    m = 256 // (2 if scale > 1 else 1)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, m)).astype(np.float32)
    b = rng.standard_normal((m, m)).astype(np.float32)
    c = np.zeros((m, m), np.float32)
    args = [np.int32(m), np.int32(m), np.int32(m), np.float32(1), a, b, np.float32(0), c]
    return load("sgemm")["sgemm_tiled16"].launch((m // 16, m // 16), (16, 16), args)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller problems")
    scale = 8 if ap.parse_args().quick else 1
    rates = []
    for bench in (vector_add, fma_loop, collatz, sgemm):
        t = time.perf_counter()
        stats = bench(scale)
        wall = time.perf_counter() - t
        rate = stats.thread_instructions / stats.seconds
        rates.append(rate)
        print(f"{bench.__name__:12s} {stats.thread_instructions:>14,} thread-instr  {stats.seconds:7.2f} s "
              f"(wall {wall:.2f} s)  {rate / 1e6:8.1f} M thread-instr/s")
    geo = math.exp(sum(math.log(r) for r in rates) / len(rates))
    print(f"{'geomean':12s} {geo / 1e6:.1f} M thread-instr/s")


if __name__ == "__main__":
    main()
