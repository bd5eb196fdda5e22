"""Speed of ptxvm.timing.memory: coalescing, bank conflicts and the cache model (sectors/s).

    python benchmarks/bench_memory_model.py [WARPS]

Each line: what ran, how many warp requests per call, and the rate (best of 3).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ptxvm.timing.gpu import load_gpu  # noqa: E402
from ptxvm.timing.memory import (CacheOp, MemoryHierarchy, SectoredCache, bank_conflicts,  # noqa: E402
                                 coalesce)

LANES = np.arange(32, dtype=np.uint64)


def _best(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _report(what, per_call, count, unit, seconds):
    print(f"{what:<46} {per_call:>6} warps/call  {count / seconds / 1e6:8.2f} M{unit}/s")


def streaming(n_warps, stride=4):
    w = np.arange(n_warps, dtype=np.uint64)[:, None] * np.uint64(32 * stride)
    return (w + LANES * np.uint64(stride)) % np.uint64(1 << 34)


def scattered(rng, n_warps):
    return rng.integers(0, 1 << 32, (n_warps, 32)).astype(np.uint64) * np.uint64(4)


def bench_functions(n_warps, rng):
    addr = scattered(rng, n_warps)
    act = np.ones(addr.shape, bool)
    t = _best(lambda: coalesce(addr, act, 4))
    _report("coalesce (scattered 4-B)", n_warps, n_warps, "warps", t)
    sh = (rng.integers(0, 12288, (n_warps, 32)) * 4).astype(np.uint64)
    t = _best(lambda: bank_conflicts(sh, act, 4))
    _report("bank_conflicts (random 4-B)", n_warps, n_warps, "warps", t)
    t = _best(lambda: bank_conflicts(sh, act, 16))
    _report("bank_conflicts (random 16-B)", n_warps, n_warps, "warps", t)


def bench_cache(n_warps, rng):
    gpu = load_gpu("h100")
    for name, addr in (("streaming", streaming(n_warps)), ("scattered", scattered(rng, n_warps))):
        c = coalesce(addr, None, 4)
        l2 = SectoredCache(gpu.l2_bytes, assoc=gpu.l2_assoc, level="L2", hashed=True)
        t = _best(lambda: l2.access(c.sectors))
        _report(f"SectoredCache L2 alone, {name}", n_warps, len(c.sectors), "sectors", t)
        l1 = SectoredCache(32 * 1024, assoc=4, level="L1")
        t = _best(lambda: l1.access(c.sectors))
        _report(f"SectoredCache L1 32 KiB alone, {name}", n_warps, len(c.sectors), "sectors", t)


def bench_hierarchy(n_warps, rng):
    gpu = load_gpu("h100")
    for name, addr in (("streaming", streaming(n_warps)), ("scattered", scattered(rng, n_warps))):
        for per_call in (1, 32, n_warps):
            if per_call > n_warps:
                continue
            calls = [coalesce(addr[i:i + per_call], None, 4) for i in range(0, n_warps, per_call)]
            if per_call == 1:
                calls = calls[:2048]
            sectors = sum(len(c.sectors) for c in calls)

            def run():
                mem = MemoryHierarchy(gpu, 132, simulated_sms=4)
                for i, c in enumerate(calls):
                    mem.load(c, op=CacheOp.CA, sm=i % 4, now=float(i))

            t = _best(run)
            _report(f"MemoryHierarchy.load, {name}", per_call, sectors, "sectors", t)


def main(n_warps: int = 8192) -> None:
    rng = np.random.default_rng(0)
    bench_functions(n_warps, rng)
    bench_cache(n_warps, rng)
    bench_hierarchy(n_warps, rng)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8192)
