"""Engine throughput in thread-instructions per second on four nvcc kernels.

    python benchmarks/bench_engine.py [--quick] [--repeat N] [--plain]

vector add (2^22 elements), an FMA loop (Horner, degree 64), a divergent loop (Collatz steps),
and a 16x16-tiled SGEMM in shared memory. Each runs first with the compiled tier on as a
warm-up (its compile or cache-load seconds, LaunchStats.jit_seconds, are printed apart), then
alternately with the tier off (the interpreter) and on (its default tiering), N times each; the best CPU seconds of
each give the rates, their ratio and the geometric means. CPU seconds, not wall: the machine is
shared.

`--plain` measures only the default configuration (one line per kernel: thread-instructions, CPU
seconds, rate), the form benchmarks/bench_compare.py reads; PTXVM_TREE=DIR measures the ptxvm of
another checkout (for before/after figures).
"""
from __future__ import annotations

import argparse
import functools
import math
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
# the ptxvm to measure: this checkout's (default), or another tree's (PTXVM_TREE, for before/after runs)
sys.path.insert(0, os.environ.get("PTXVM_TREE") or str(ROOT))
# one process: these are single-process figures (CTA-parallel launches, ptxvm/parallel, are
# measured by bench_parallel.py; the CPU time of worker processes is not this process's)
os.environ.setdefault("PTXVM_WORKERS", "1")
os.environ.setdefault("PTXVM_THREADS", "1")  # ... on one core (ptxvm.cores: no threaded copies or tensor-core rows)

import ptxvm  # noqa: E402
import ptxvm.jit  # noqa: E402

PTX = ROOT / "tests" / "corpus" / "ptx"


@functools.lru_cache(maxsize=None)
def load(stem):
    """Loaded once: the compiled tier's blocks (and their hotness) belong to the module."""
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


def timed(bench, scale, jit):
    """(thread-instructions, CPU seconds, JIT seconds) of one run."""
    with ptxvm.jit.override(jit):
        t = time.process_time()
        stats = bench(scale)
        return stats.thread_instructions, time.process_time() - t, getattr(stats, "jit_seconds", 0.0)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def plain(scale, repeat):
    """The default configuration only, one line per kernel (read by bench_compare.py)."""
    rates = []
    for bench in (vector_add, fma_loop, collatz, sgemm):
        bench(scale * 8)  # parse, lowering and first-use costs out of the timings
        best = None
        for _ in range(max(1, repeat)):
            t = time.process_time()
            stats = bench(scale)
            cpu = time.process_time() - t
            if best is None or cpu < best[0]:
                best = (cpu, stats)
        cpu, stats = best
        rate = stats.thread_instructions / cpu
        rates.append(rate)
        print(f"{bench.__name__:12s} {stats.thread_instructions:>14,} thread-instr  {cpu:7.3f} CPU s "
              f"(wall {stats.seconds:.3f} s)  {rate / 1e6:8.1f} M thread-instr/s")
    print(f"{'geomean':12s} {geomean(rates) / 1e6:.1f} M thread-instr/s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller problems")
    ap.add_argument("--repeat", type=int, default=2, help="runs of each mode; the best counts")
    ap.add_argument("--plain", action="store_true", help="only the default configuration, one line per kernel")
    a = ap.parse_args()
    scale = 8 if a.quick else 1
    if a.plain:
        plain(scale, max(a.repeat, 3))
        return
    off_rates, on_rates = [], []
    print(f"{'kernel':12s} {'thread-instr':>14s} {'interpreter':>12s} {'compiled':>12s} {'ratio':>6s} {'JIT warm-up':>12s}")
    for bench in (vector_add, fma_loop, collatz, sgemm):
        old = os.environ.get("PTXVM_JIT_THRESHOLD")
        os.environ["PTXVM_JIT_THRESHOLD"] = "0"  # the warm-up compiles (or loads) every block it runs
        try:
            _, warm_cpu, warm_jit = timed(bench, scale, True)
        finally:
            if old is None:
                del os.environ["PTXVM_JIT_THRESHOLD"]
            else:
                os.environ["PTXVM_JIT_THRESHOLD"] = old
        best = {False: math.inf, True: math.inf}
        for _ in range(a.repeat):
            for jit in (False, True):
                n, cpu, _ = timed(bench, scale, jit)
                best[jit] = min(best[jit], cpu)
        off, on = n / best[False], n / best[True]
        off_rates.append(off)
        on_rates.append(on)
        print(f"{bench.__name__:12s} {n:>14,} {off / 1e6:>10.1f} M {on / 1e6:>10.1f} M {on / off:>6.2f} {warm_jit:>10.2f} s")
    off, on = geomean(off_rates), geomean(on_rates)
    print(f"{'geomean':12s} {'':>14s} {off / 1e6:>10.1f} M {on / 1e6:>10.1f} M {on / off:>6.2f}   (thread-instr/s, CPU)")


if __name__ == "__main__":
    main()
