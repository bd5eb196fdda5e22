"""How a wave's size changes the engine's speed when every core runs it at once: N processes
(1 and all cores) each run a 1M-element vector add (4096 CTAs: one 16th of bench_parallel's
vector add, what one of 16 workers runs) and a 1M-element u32 sum, with waves capped at C
threads (ptxvm.engine.launch.CACHE_WAVE_THREADS). Prints the median CPU seconds per process.

    python benchmarks/bench_wave_contention.py [--caps 8192,16384,32768,65536,270336] [--procs 1,16]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import pathlib
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def one(args):
    cap, workload = args
    import bench_parallel
    from ptxvm.engine import launch as L
    from ptxvm.parallel import pool
    pool._keep_freed_memory()  # as a pool worker does
    L.CACHE_WAVE_THREADS = cap
    bench_parallel.N = 1 << 20
    go = bench_parallel.WORKLOADS[workload][1]()
    go(1)
    best = 9e9
    for _ in range(3):
        t = time.process_time()
        go(1)
        best = min(best, time.process_time() - t)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--caps", default="8192,16384,32768,65536,270336")
    ap.add_argument("--procs", default=f"1,{len(os.sched_getaffinity(0))}")
    ap.add_argument("--workloads", default="vadd,reduce")
    opt = ap.parse_args()
    ctx = mp.get_context("spawn")
    for workload in opt.workloads.split(","):
        for procs in [int(p) for p in opt.procs.split(",")]:
            with ctx.Pool(procs) as p:
                row = []
                for cap in [int(c) for c in opt.caps.split(",")]:
                    times = p.map(one, [(cap, workload)] * procs)
                    row.append(f"{cap}: {statistics.median(times) * 1e3:6.1f} ms")
            print(f"{workload:7s} {procs:2d} processes  " + "  ".join(row), flush=True)


if __name__ == "__main__":
    main()
