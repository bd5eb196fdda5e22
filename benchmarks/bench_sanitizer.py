"""Sanitizer overhead: a sanitized launch's time over a plain launch's, per checker.

    python benchmarks/bench_sanitizer.py [--quick]

Kernels from tests/corpus/ptx: vector add (global loads and stores), a 16x16-tiled SGEMM (shared
memory and barriers: racecheck's busiest case), Collatz steps (a divergent loop) and a
cuda::barrier producer/consumer (mbarriers: racecheck's vector clocks). Each figure
is the best of three interleaved launches after a warm-up; docs/performance.md ("Sanitizer overhead") holds a run's output.
"""
from __future__ import annotations

import argparse
import pathlib
import time

import numpy as np

import ptxvm

PTX = pathlib.Path(__file__).resolve().parents[1] / "tests" / "corpus" / "ptx"
TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")


def cases(scale):
    n = (1 << 20) // scale
    add = ptxvm.load(PTX / "vector_add.sm_90.ptx")["vector_add_f32"]
    yield "vector_add", add, ((n + 255) // 256, 256), lambda: [np.arange(n, dtype=np.float32), np.ones(n, np.float32),
                                                            np.zeros(n, np.float32), np.int32(n)]
    m = 128 // scale
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, m)).astype(np.float32)
    b = rng.standard_normal((m, m)).astype(np.float32)
    gemm = ptxvm.load(PTX / "sgemm.sm_90.ptx")["sgemm_tiled16"]
    yield "sgemm_tiled16", gemm, ((m // 16, m // 16), (16, 16)), lambda: [
        np.int32(m), np.int32(m), np.int32(m), np.float32(1), a, b, np.float32(0), np.zeros((m, m), np.float32)]
    c = (1 << 14) // scale
    start = np.random.default_rng(0).integers(1, 1 << 20, c).astype(np.uint64)
    collatz = ptxvm.load(PTX / "collatz.sm_90.ptx")["collatz_steps"]
    yield "collatz_steps", collatz, ((c + 255) // 256, 256), lambda: [start, np.zeros(c, np.int32), np.int32(c)]
    # cuda::barrier producer/consumer: a warp fills a buffer, three read it, two mbarriers per round
    # (racecheck's vector clocks, tools/sanitizer/clocks.py)
    blocks, rounds = 64 // scale, 16
    pc = ptxvm.load(PTX / "mbarrier.sm_90.ptx")["mbarrier_producer_consumer"]
    data = np.random.default_rng(0).integers(-100, 100, blocks * rounds * 32).astype(np.int32)
    yield "mbarrier_producer_consumer", pc, (blocks, 128), lambda: [data, np.zeros(blocks * 128, np.int32),
                                                                    np.int32(rounds)]


def best(fn, repeats=3):
    """Best CPU time of the process (the engine is single-threaded; CPU time is less disturbed
    than wall time by other processes on a shared machine)."""
    times = []
    for _ in range(repeats):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    opts = ap.parse_args()
    print(f"| kernel | plain (s) | {' | '.join(TOOLS)} |")
    print("| --- | ---: |" + " ---: |" * len(TOOLS))
    for name, k, (grid, block), args in cases(4 if opts.quick else 1):
        runs = {"plain": lambda: k.launch(grid, block, args())}
        for tool in TOOLS:
            runs[tool] = lambda tool=tool: k.sanitize(grid, block, args(), tool=tool)
        for fn in runs.values():  # warm up: lowering, and the arena's growth to its working size
            fn()
        times = {what: [] for what in runs}
        for _ in range(3):  # interleaved, so that load from other processes falls on all alike
            for what, fn in runs.items():
                times[what].append(best(fn, 1))
        plain = min(times["plain"])
        ratios = [f"{min(times[tool]) / plain:.2f}x" for tool in TOOLS]
        print(f"| {name} | {plain:.3f} | {' | '.join(ratios)} |")


if __name__ == "__main__":
    main()
