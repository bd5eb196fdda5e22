"""How processes that each run a share of one launch slow each other, without the pool: 16
processes each run 1/16 of a 16M-element vector add (device arrays) with Launch.positions, their global
memory (a) a private anonymous copy, (b) one memfd mapped MAP_SHARED by all (the pool's in-place
stores), (c) the memfd mapped MAP_PRIVATE; CPU seconds of Launch.execute per process (best of 3
after a warm run), one process alone and 16 at once, forked from one parent as the pool's workers
are, or spawned (each a fresh interpreter that makes the launch itself; private memory only). benchmarks/results/shard_contention_16cores.txt is its run on the GPU machine's 16 vCPUs;
docs/performance.md (issue 21, eighth pass) reads it.

    python benchmarks/bench_shard_contention.py  (Linux: fork, memfd)
"""
from __future__ import annotations

import mmap
import multiprocessing as mp
import os
import pathlib
import statistics
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import bench_parallel  # noqa: E402
import ptxvm  # noqa: E402
from ptxvm.engine.launch import Launch  # noqa: E402
from ptxvm.parallel import pool  # noqa: E402
from ptxvm.parallel.analysis import may_regroup  # noqa: E402

N = 1 << 24
KERNEL = ptxvm.loads(bench_parallel.VADD, "vadd.ptx").kernel("vadd")
ARGS = [ptxvm.to_device(np.ones(N, np.float32)), ptxvm.to_device(np.ones(N, np.float32)),
        ptxvm.to_device(np.zeros(N, np.float32)), N]


def launch() -> Launch:
    one = Launch(KERNEL, N // 256, 256, ARGS, 0, None, None, None, None, None)
    one.regroup = may_regroup(one)
    return one


def job(args) -> float:
    """CPU seconds of one process's share, its global memory as `mode` says."""
    mode, index, parts, fd, size = args
    pool._keep_freed_memory()  # as a pool worker does
    one = launch()
    mem = one.device.memory
    if mode == "private":
        mem.arena = np.array(mem.arena)
    else:
        flags = mmap.MAP_SHARED if mode == "shared" else mmap.MAP_PRIVATE
        mem.arena = np.frombuffer(mmap.mmap(fd, size, flags=flags), np.uint8)
    grid = N // 256
    one.positions = (index * grid // parts, (index + 1) * grid // parts)
    one.execute()  # warm: page faults, lowering
    best = 9e9
    for _ in range(3):
        t = time.process_time()
        one.execute()
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    arena = launch().device.memory.arena
    fd = os.memfd_create("arena")
    os.ftruncate(fd, arena.size)
    np.frombuffer(mmap.mmap(fd, arena.size, flags=mmap.MAP_SHARED), np.uint8)[:] = arena
    parts = 16
    for procs in (1, parts):
        for how, mode in (("forked", "private"), ("forked", "shared"), ("forked", "copyonwrite"),
                          ("spawned", "private")):
            with mp.get_context("fork" if how == "forked" else "spawn").Pool(procs) as p:
                t = p.map(job, [(mode, i, parts, fd, arena.size) for i in range(procs)])
            print(f"{how:7s} {mode:12s} {procs:2d} processes at once, 1/{parts} each: CPU ms median "
                  f"{statistics.median(t) * 1e3:6.1f} max {max(t) * 1e3:6.1f}", flush=True)


if __name__ == "__main__":
    main()
