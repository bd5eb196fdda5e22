#!/usr/bin/env python3
"""Run the second set of timing microbenchmarks (benchmarks/timing/micro2/) on the GPU.

    python3 tools/device/timing_micro2.py --out RESULTS.json [--only NAME[,NAME]] [--cubins DIR]

Needs CuPy. Loads micro2.cubin, wgmma.cubin and check_kernels.cubin (built here by
benchmarks/timing/micro2/build.sh: nvcc/ptxas -arch=sm_90a). As tools/device/timing_micro.py:
each item in its own try block, the JSON rewritten after every item. Cycle counts from %clock64
inside the kernels (the second of two launches); rates and launch costs from CUDA events.

"Issue convention" (issue 20): CUDA events around one launch queued behind a spin kernel (so the
host's submission gap is hidden), the L2 flushed (a 256 MiB memset) before the spin kernel.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MICRO2 = os.path.join(ROOT, "benchmarks", "timing", "micro2")


class Bench:
    def __init__(self, cp, np, cubins):
        self.cp, self.np = cp, np
        self.mod = cp.RawModule(path=os.path.join(cubins, "micro2.cubin"))
        self.wg = cp.RawModule(path=os.path.join(cubins, "wgmma.cubin"))
        self.chk = cp.RawModule(path=os.path.join(cubins, "check_kernels.cubin"))
        self.out = cp.zeros(1 << 16, dtype=cp.int64)
        self.sinkf = cp.zeros(4096, dtype=cp.float32)
        self.sinkd = cp.zeros(4096, dtype=cp.float64)
        self.flush_buf = cp.zeros(1 << 28, dtype=cp.uint8)  # 256 MiB > 4 x L2

    def k(self, name):
        return self.mod.get_function(name)

    def sync(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def flush(self):
        self.flush_buf.fill(1)

    def events_ms(self, fn, reps=10, warm=2):
        cp = self.cp
        for _ in range(warm):
            fn()
        self.sync()
        times = []
        for _ in range(reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(cp.cuda.get_elapsed_time(a, b))
        return {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times)}

    def convention_us(self, fn, reps=15, flush=True, spin_cycles=40000):
        """Issue convention: [flush L2], spin kernel, event, launch, event; median us."""
        cp, np = self.cp, self.np
        spin = self.k("spin")
        fn()
        self.sync()
        times = []
        for _ in range(reps):
            if flush:
                self.flush()
            spin((1,), (1,), (np.int64(spin_cycles),))
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
        return {"median_us": statistics.median(times), "min_us": min(times), "max_us": max(times)}

    def cycles(self, fn, n_out, flush=False):
        """Run twice, return the second run's out[0:n_out] (flush: the L2 before each run)."""
        for _ in range(2):
            self.out[:n_out].fill(0)
            if flush:
                self.flush()
            fn()
        self.sync()
        return [int(x) for x in self.out[:n_out].get()]


def m_clock(b):
    np = b.np
    t = b.events_ms(lambda: b.k("spin")((1,), (1,), (np.int64(200_000_000),)), reps=3, warm=1)
    return {"spin_cycles": 200_000_000, **t, "mhz": 200_000_000 / (t["median_ms"] * 1e3)}


LAT_OPS = ("xor", "lop3", "shl", "selp", "mulwide", "popc", "divf", "sqrtf", "rcprn", "urem", "cvth", "cvtf64",
           "dmul", "fmin", "shfl_idx", "s2r")


def m_latency(b):
    np = b.np
    res = {}
    for op in LAT_OPS:
        f = b.k(f"lat2_{op}")
        if op in ("divf", "sqrtf", "rcprn", "cvth", "cvtf64", "fmin"):
            args = (np.float32(1.0001), np.float32(0.9999))
            sink = b.sinkf
        elif op == "dmul":
            args = (np.float64(1.0000001), np.float64(0.9999999))
            sink = b.sinkd
        else:
            args = (np.uint32(12345), np.uint32(3) if op != "urem" else np.uint32(1000003))
            sink = b.out
        cyc, n = b.cycles(lambda: f((1,), (32 if op == "shfl_idx" else 1,), args + (np.int32(64), b.out, sink)), 2)
        res[op] = cyc / n
    return res


def m_issue(b):
    np = b.np
    res = []
    for k in (1, 2, 4, 8):
        f = b.k(f"issue_fma{k}")
        for w in (1, 2, 4, 8, 16, 32):
            v = b.cycles(lambda: f((1,), (32 * w,), (np.float32(0.999), np.int32(64), b.out, b.sinkf)), 2 * w)
            cyc = [v[2 * i] for i in range(w)]
            n = v[1]
            res.append({"chains": k, "warps": w, "cycles_max": max(cyc), "fma_per_warp": n,
                        "cycles_per_fma_per_warp": max(cyc) / n,
                        "warp_fma_per_clk_per_sm": w * n / max(cyc)})
    mix = []
    f = b.k("issue_mix")
    for w in (1, 4, 8, 16):
        v = b.cycles(lambda: f((1,), (32 * w,), (np.float32(0.999), np.uint32(7), np.int32(64), b.out, b.sinkf)), 2 * w)
        cyc = max(v[2 * i] for i in range(w))
        mix.append({"warps": w, "instr_per_warp": v[1], "cycles": cyc, "cycles_per_instr_per_warp": cyc / v[1]})
    loops = {}
    for name in ("loop_fma4", "loop_fma1"):
        o = b.cp.zeros(32, dtype=b.cp.float32)
        cyc, n = b.cycles(lambda: b.k(name)((1,), (32,), (o, np.int32(20000), b.out)), 2)
        loops[name] = {"cycles": cyc, "iters": n, "cycles_per_iter": cyc / n}
    return {"fma": res, "mix": mix, "loops": loops}


def m_shared(b):
    np = b.np
    res = {"atom_ways": [], "atom_ways_lat": [], "hist": [], "lds_width": [], "lds_fma": []}
    f = b.k("atom_shared_ways")
    for block in (32, 1024):
        for spread in (1, 32):
            for ways in (1, 2, 4, 8, 16, 32):
                cyc, n = b.cycles(lambda: f((1,), (block,), (np.int32(ways), np.int32(spread), np.int32(32), b.out)), 2)
                res["atom_ways"].append({"block": block, "spread": spread, "ways": ways,
                                         "cycles_per_warp_atomic": cyc / n * (block // 32) if block > 32 else cyc / n,
                                         "sm_cycles_per_warp_atomic": cyc / n})
    f = b.k("atom_shared_ways_lat")
    for ways in (1, 2, 4, 8, 32):
        cyc, n = b.cycles(lambda: f((1,), (32,), (np.int32(ways), np.int32(32), b.out)), 2)
        res["atom_ways_lat"].append({"ways": ways, "cycles_per_atomic": cyc / n})
    f = b.k("atom_shared_hist")
    for block in (256, 1024):
        for bins in (32, 256, 1024, 4096):
            cyc, n = b.cycles(lambda: f((1,), (block,), (np.int32(bins), np.int32(256), b.out)), 2)
            res["hist"].append({"block": block, "bins": bins, "sm_cycles_per_warp_atomic": cyc / n})
    f = b.k("lds_width")
    for block in (128, 1024):
        for width in (4, 8, 16):
            cyc, n = b.cycles(lambda: f((1,), (block,), (np.int32(width), np.int32(64), b.out, b.sinkf)), 2)
            res["lds_width"].append({"block": block, "width": width, "sm_cycles_per_warp_load": cyc / n})
    f = b.k("lds_fma")
    for block in (32, 256, 1024):
        cyc, n = b.cycles(lambda: f((1,), (block,), (np.int32(64), b.out, b.sinkf)), 2)
        res["lds_fma"].append({"block": block, "sm_cycles_per_step_all_warps": cyc / n,
                               "cycles_per_step_per_warp": cyc / n * (block // 32)})
    return res


def m_barrier(b):
    np = b.np
    res = {"multi": [], "tree": []}
    f = b.k("barrier_multi")
    for block, per_sm in ((32, 1), (32, 8), (32, 32), (128, 1), (128, 8), (256, 1), (256, 4), (256, 8), (512, 1),
                          (512, 4), (1024, 1), (1024, 2)):
        grid = 132 * per_sm
        v = b.cycles(lambda: f((grid,), (block,), (np.int32(256), b.out)), 2 * grid)
        cyc = [v[2 * i] for i in range(grid)]
        res["multi"].append({"block": block, "ctas_per_sm": per_sm, "cycles_per_barrier_median": statistics.median(cyc) / 256,
                             "cycles_per_barrier_max": max(cyc) / 256})
    f = b.k("barrier_tree")
    for block, per_sm in ((128, 1), (256, 1), (256, 8), (512, 1), (512, 4), (1024, 1), (1024, 2)):
        grid = 132 * per_sm
        v = b.cycles(lambda: f((grid,), (block,), (np.int32(16), b.out)), 2 * grid)
        cyc = [v[2 * i] for i in range(grid)]
        steps = block.bit_length() - 1
        res["tree"].append({"block": block, "ctas_per_sm": per_sm, "steps": steps,
                            "cycles_per_tree_median": statistics.median(cyc) / 16,
                            "cycles_per_step": statistics.median(cyc) / 16 / steps})
    return res


def m_loaded_latency(b):
    """Pointer chases by every lane of every warp: latency under the load they make together."""
    cp, np = b.cp, b.np
    res = []
    f = b.k("chase_load")
    for label, entries in (("l2", 1 << 22), ("dram", 1 << 28)):
        nxt = cp.random.randint(0, min(entries, 1 << 22) if label == "l2" else entries, size=entries,
                                dtype=cp.int64).astype(cp.uint32)
        if label == "l2":
            nxt = cp.random.permutation(entries).astype(cp.uint32)
        b.sync()
        for grid, block, lanes in ((1, 32, 1), (1, 32, 32), (132, 32, 1), (132, 32, 32), (132, 128, 32), (132, 256, 32),
                                   (264, 512, 32), (264, 1024, 32), (132, 1024, 1)):
            steps = 256 if label == "l2" else 64
            v = b.cycles(lambda: f((grid,), (block,), (nxt, np.int32(steps), np.int32(lanes), np.int32(1), b.out)),
                         2 * grid, flush=label == "dram")
            cyc = [v[2 * i] for i in range(grid)]
            res.append({"level": label, "grid": grid, "block": block, "lanes": lanes,
                        "loads_in_flight": grid * block // 32 * lanes,
                        "cycles_per_step_median": statistics.median(cyc) / steps,
                        "cycles_per_step_max": max(cyc) / steps})
        del nxt
    return {"points": res}


def m_dram_occupancy(b):
    cp, np = b.cp, b.np
    n4 = (1 << 30) // 16
    src = cp.ones(n4 * 4, dtype=cp.float32)
    res = []
    for grid, block in ((132, 32), (132, 64), (132, 128), (132, 256), (132, 512), (132, 1024), (264, 1024),
                        (33, 1024), (66, 1024), (1056, 256)):
        for u in (1, 4):
            f = b.k(f"stream_read{u}")
            t = b.events_ms(lambda: f((grid,), (block,), (src, np.int64(n4), b.sinkf)), reps=4, warm=1)
            res.append({"grid": grid, "block": block, "unroll": u, "min_ms": t["min_ms"],
                        "bytes_per_s": n4 * 16 / (t["min_ms"] * 1e-3)})
    del src
    return {"points": res}


def m_atomics(b):
    cp, np = b.cp, b.np
    a = cp.zeros(1 << 22, dtype=cp.uint32)
    f = b.k("atom_global")
    res = []
    for mode, bins, label in ((0, 1, "same_address"), (4, 1, "red_same_address"), (1, 1, "per_warp_address"),
                              (2, 1, "coalesced"), (3, 256, "random_256"), (3, 4096, "random_4096"),
                              (3, 1 << 16, "random_64k"), (3, 1 << 22, "random_4m")):
        grid, block, iters = 528, 1024, 16 if mode in (0, 4) else 64
        t = b.events_ms(lambda: f((grid,), (block,), (a, np.int32(mode), np.int32(bins), np.int32(iters))), reps=4, warm=1)
        n = grid * block * iters
        res.append({"mode": label, "bins": bins, "atomics": n, "min_ms": t["min_ms"],
                    "atomics_per_s": n / (t["min_ms"] * 1e-3), "atomics_per_clk": n / (t["min_ms"] * 1e-3) / 1.98e9})
    return {"points": res}


def m_launch(b):
    cp, np = b.cp, b.np
    e = b.k("empty")
    res = []
    for grid, block in ((1, 32), (132, 32), (132, 1024), (1056, 256), (8448, 256), (33792, 256), (132 * 64, 32)):
        fn = lambda: e((grid,), (block,), ())  # noqa: E731
        flushed = b.convention_us(fn, flush=True)
        warm = b.convention_us(fn, flush=False)
        bb = b.events_ms(lambda: [fn() for _ in range(20)], reps=5)
        res.append({"kernel": "empty", "grid": grid, "block": block, "flushed_queued_us": flushed, "warm_queued_us": warm,
                    "back_to_back_us": bb["median_ms"] * 1e3 / 20})
    x = cp.ones(1 << 22, dtype=cp.float32)
    y = cp.zeros_like(x)
    t = b.k("tiny_copy")
    for n in (32, 1024, 1 << 16, 1 << 20, 1 << 22):
        grid = max(1, n // 256)
        fn = lambda: t((grid,), (min(n, 256),), (x, y, np.int32(n)))  # noqa: E731
        res.append({"kernel": "tiny_copy", "n": n, "grid": grid, "flushed_queued_us": b.convention_us(fn, flush=True),
                    "warm_queued_us": b.convention_us(fn, flush=False)})
    return {"points": res}


def m_tail(b):
    cp, np = b.cp, b.np
    f = b.k("cta_spin")
    rec = cp.zeros(3 * 2048, dtype=cp.uint64)
    res = []
    for grid in (132, 133, 264, 265, 396, 397, 528):
        for block in (1024,):
            fn = lambda: f((grid,), (block,), (np.int64(20000), rec))  # noqa: E731
            t = b.convention_us(fn, flush=False, reps=7)
            r = rec[:3 * grid].get().reshape(grid, 3).astype(np.int64)
            t0 = int(r[:, 1].min())
            item = {"grid": grid, "block": block, "spin_cycles": 20000, "events": t,
                    "span_ns": int(r[:, 2].max() - t0)}
            if grid in (133, 265, 397):
                item["ctas"] = [[int(s), int(a - t0), int(z - t0)] for s, a, z in r.tolist()]
            else:
                item["smid_first_16"] = [int(s) for s in r[:16, 0]]
                item["start_spread_ns"] = int(r[:, 1].max() - t0)
            res.append(item)
    return {"points": res}


def m_wgmma(b):
    np = b.np
    res = []
    for ty in ("f16", "tf32", "bf16"):
        for n in (64, 128, 256):
            for per in (1, 8):
                f = b.wg.get_function(f"wg_{ty}_n{n}_k{per}")
                for wgs in (1, 2, 4):
                    grid = 132
                    try:
                        v = b.cycles(lambda: f((grid,), (128 * wgs,), (np.int32(32), b.out)), 2 * grid * wgs)
                    except Exception as e:  # too many registers for 4 warpgroups of n256
                        res.append({"type": ty, "n": n, "per_group": per, "warpgroups_per_sm": wgs, "error": str(e)[:200]})
                        continue
                    cyc = [v[2 * i] for i in range(grid * wgs)]
                    count = v[1]
                    k = 16 if ty != "tf32" else 8
                    flop = 2 * 64 * n * k
                    med = statistics.median(cyc)
                    res.append({"type": ty, "n": n, "per_group": per, "warpgroups_per_sm": wgs,
                                "cycles_per_wgmma": med / count,
                                "flop_per_clk_per_sm": flop * count * wgs / med})
    return {"points": res}


def m_check(b):
    """The check kernels (benchmarks/timing/micro2/check_kernels.cu) under the issue's convention."""
    cp, np = b.cp, b.np
    rng = np.random.default_rng(0)
    k = b.chk.get_function
    res = []
    n = 1 << 22
    x = cp.asarray(rng.standard_normal(n, dtype=np.float32))
    o = cp.zeros(n, dtype=cp.float32)
    N = 256
    A = cp.asarray(rng.standard_normal(N * N, dtype=np.float32))
    B = cp.asarray(rng.standard_normal(N * N, dtype=np.float32))
    C = cp.zeros(N * N, dtype=cp.float32)
    d = cp.asarray(rng.integers(0, 256, n, dtype=np.uint8))
    h = cp.zeros(256, dtype=cp.uint32)
    ns = 1 << 21
    sv = cp.asarray(rng.standard_normal(ns, dtype=np.float32))
    sf = cp.asarray((rng.random(ns) < 0.02).astype(np.int32))
    nl = 1 << 18
    cnt = cp.asarray(np.sort(rng.integers(0, 64, nl)).astype(np.int32))
    cases = [
        ("reduce_tree", lambda: k("reduce_tree")((n // 1024,), (512,), (x, o, np.uint32(n)), shared_mem=2048)),
        ("reduce_interleaved", lambda: k("reduce_interleaved")((n // 256,), (256,), (x, o, np.uint32(n)), shared_mem=1024)),
        ("sgemm_naive", lambda: k("sgemm_naive")((N // 16, N // 16), (16, 16), (A, B, C, np.int32(N)))),
        ("sgemm_tiled", lambda: k("sgemm_tiled")((N // 16, N // 16), (16, 16), (A, B, C, np.int32(N)))),
        ("hist_shared256", lambda: k("hist_shared256")((1056,), (256,), (d, np.uint32(n), h))),
        ("seg_scan", lambda: k("seg_scan")((ns // 256,), (256,), (sv, sf, o, np.uint32(ns)))),
        ("fma_warp", lambda: k("fma_warp")((1,), (32,), (o, np.int32(20000)))),
        ("loop_sorted", lambda: k("loop_data")((nl // 256,), (256,), (cnt, o, np.uint32(nl)))),
        ("empty", lambda: k("empty_kernel")((1,), (32,), ())),
    ]
    for name, fn in cases:
        res.append({"case": name, "flushed_queued_us": b.convention_us(fn, flush=True),
                    "warm_queued_us": b.convention_us(fn, flush=False)})
    return {"points": res}


def m_int_thr(b):
    """Integer pipes: 1024 threads per SM (132 CTAs) x 8 chains; lanes per clock per SM."""
    np = b.np
    res = {}
    for op in ("iadd", "lop3", "shf", "imad", "setpsel"):
        f = b.k(f"ithr_{op}")
        v = b.cycles(lambda: f((132,), (1024,), (np.uint32(7), np.int32(16), b.out, b.sinkd)), 2 * 132)
        cyc = statistics.median(v[2 * i] for i in range(132))
        n = v[1]
        res[op] = {"cycles": cyc, "warp_instr": n, "warp_instr_per_clk_per_sm": n / cyc,
                   "issue_interval_per_subpartition": 4 * cyc / n}
    return res


def m_l1_lines(b):
    """L1 hits with 1..32 distinct lines per warp request: latency (1 warp) and rate (32 warps)."""
    cp, np = b.cp, b.np
    buf = cp.zeros(8 * 32 * 32, dtype=cp.uint32)  # 32 KiB: 8 groups of 32 lines
    f = b.k("l1_lines")
    res = []
    for block in (32, 1024):
        for lines in (1, 2, 4, 8, 16, 32):
            cyc, n = b.cycles(lambda: f((1,), (block,), (buf, np.int32(lines), np.int32(32), b.out)), 2)
            res.append({"block": block, "lines": lines, "cycles_per_load": cyc / n,
                        "sm_cycles_per_warp_load": cyc / n / (block // 32)})
    return {"points": res}


def m_store_lines(b):
    """Stores of 1..32 lines per warp request into an L2-resident 16 MiB buffer."""
    cp, np = b.cp, b.np
    buf = cp.zeros(1 << 22, dtype=cp.uint32)
    f = b.k("store_lines")
    res = []
    for grid, block in ((1, 32), (132, 256), (132, 1024)):
        for lines in (1, 4, 32):
            v = b.cycles(lambda: f((grid,), (block,), (buf, np.int32(lines), np.int32(64), np.int64((1 << 22) - 1), b.out)),
                         2 * grid)
            cyc = statistics.median(v[2 * i] for i in range(grid))
            res.append({"grid": grid, "block": block, "lines": lines, "cycles_per_store_per_warp": cyc / 64,
                        "sm_lines_per_clk": (block // 32) * lines * 64 / cyc})
    return {"points": res}


def m_l2_warm(b):
    """Back-to-back launches of a read stream (and a copy) over F MiB: how much of the data the
    previous launch left in L2; and the same launch with the L2 flushed before it."""
    cp, np = b.cp, b.np
    big = cp.ones((160 << 20) // 4, dtype=cp.float32)
    dst = cp.zeros_like(big)
    f = b.k("stream_read4")
    res = []
    for mib in (8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 128, 160):
        n4 = (mib << 20) // 16
        fn = lambda: f((132 * 8,), (256,), (big, np.int64(n4), b.sinkf))  # noqa: E731
        warm = b.events_ms(fn, reps=8, warm=3)
        cold = b.convention_us(fn, reps=8, flush=True)
        half = (mib << 20) // 8
        cp_fn = lambda: cp.copyto(dst[:half], big[:half])  # noqa: E731
        cwarm = b.events_ms(cp_fn, reps=8, warm=3)
        res.append({"mib": mib, "read_warm_ms": warm["median_ms"], "read_warm_min_ms": warm["min_ms"],
                    "read_cold_us": cold["median_us"], "copy_half_warm_ms": cwarm["median_ms"]})
    del big, dst
    return {"points": res}


ITEMS2 = {"int_thr": m_int_thr, "l1_lines": m_l1_lines, "store_lines": m_store_lines, "l2_warm": m_l2_warm}

# wgmma last: a fault there would poison the context for every later item
ITEMS = {"clock": m_clock, "latency": m_latency, "issue": m_issue, "shared": m_shared, "barrier": m_barrier,
         "launch": m_launch, "check": m_check, "tail": m_tail, "atomics": m_atomics,
         "loaded_latency": m_loaded_latency, "dram_occupancy": m_dram_occupancy, **ITEMS2, "wgmma": m_wgmma}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--cubins", default=MICRO2)
    args = ap.parse_args(argv)
    import cupy as cp
    import numpy as np

    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "python": platform.python_version(), "cupy": cp.__version__, "items": {}}

    def save():
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(results, f, indent=1, default=float)
        os.replace(tmp, args.out)

    try:
        p = cp.cuda.runtime.getDeviceProperties(0)
        results["device"] = {"name": p["name"].decode() if isinstance(p["name"], bytes) else p["name"],
                             "sms": p["multiProcessorCount"], "l2": p["l2CacheSize"], "clock_khz": p["clockRate"]}
    except Exception:
        results["device"] = {"error": traceback.format_exc()[-800:]}
    save()
    b = Bench(cp, np, args.cubins)
    only = [s for s in args.only.split(",") if s]
    for name, fn in ITEMS.items():
        if only and name not in only:
            continue
        t0 = time.time()
        try:
            results["items"][name] = fn(b)
        except Exception:
            results["items"][name] = {"error": traceback.format_exc()[-1500:]}
        results["items"][name + "_seconds"] = round(time.time() - t0, 3)
        print(f"{name}: {time.time() - t0:.2f} s", flush=True)
        save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
