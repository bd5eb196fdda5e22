"""One process, CPU seconds per kernel with waves capped at C threads (the engine's
CACHE_WAVE_THREADS; "None": the GPU's residency, 132 SMs' worth): the four bench_engine.py
kernels and bench_parallel.py's vector add and sum. Best of two runs after a warm-up.

    python benchmarks/bench_wave_sizes.py [None,131072,65536,32768,16384]
"""
from __future__ import annotations

import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import bench_engine as be  # noqa: E402
import bench_parallel as bp  # noqa: E402
from ptxvm.engine import launch as L  # noqa: E402


def main():
    caps = [None if c == "None" else int(c) for c in (sys.argv[1] if len(sys.argv) > 1 else "None,131072,65536,32768,16384").split(",")]
    vadd, total = bp.WORKLOADS["vadd"][1](), bp.WORKLOADS["reduce"][1]()
    benches = {"vector_add 4M": be.vector_add, "fma_loop": be.fma_loop, "collatz": be.collatz, "sgemm": be.sgemm,
               "vadd 16M": lambda s: vadd(1), "sum 16M": lambda s: total(1)}
    original = L.CACHE_WAVE_THREADS
    for name, bench in benches.items():
        bench(8)
        row = []
        for cap in caps:
            L.CACHE_WAVE_THREADS = cap or original
            os.environ["PTXVM_REGROUP"] = "1" if cap else "0"  # None: the GPU's waves
            best = 9e9
            for _ in range(2):
                t = time.process_time()
                bench(1)
                best = min(best, time.process_time() - t)
            row.append(f"{cap}: {best:.3f} s")
        print(f"{name:14s} " + "  ".join(row), flush=True)


if __name__ == "__main__":
    main()
