#!/usr/bin/env python3
"""Run the loaded-latency microbenchmarks (benchmarks/timing/loaded/loaded.cu) on the GPU.

    python3 tools/device/timing_loaded.py --cubin loaded.cubin --out RESULTS.json [--budget 100]

Needs CuPy. One grid of points: per-lane stride S (4 B .. 4 KiB: 4..32 sectors, 1..32 lines per
warp request), warps per SM W (1..64: one CTA of 32*W threads per SM, two of 1024 for 64), loads
in flight per warp K (1..16), footprint `l2` (a 16 MiB window, read once before the timed launch:
L2-resident) or `dram` (a 4 GiB window, each sector read once; a 256 MiB memset flushes the L2
before the launch). Each point: `iters` rounds per warp, three timed launches; per launch the
slowest CTA's clock64 cycles of its rounds (the model's SM cycles without the launch), the
median over CTAs, and CUDA-event microseconds. Items: `grid` (the sweep), `clock` (cycles per us).
Points run until --budget seconds are spent; the JSON is rewritten after every block.
`--carveout` (not part of the first recording) adds the item `carveout`: a few points of one CTA
per SM launched with 0..200 KiB of dynamic shared memory, so the L1 left beside the carveout
shrinks to ~28 KiB (does a small L1 limit the misses in flight? calibration occ_smem_100k/200k).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_file import ResultsFile, device_info, sm_clock  # tools/device/, beside this file

MIB = 1 << 20
SMS = 132
STRIDES = (4, 8, 16, 32, 64, 128, 256, 1024, 4096)
WARPS = (1, 2, 4, 8, 16, 32, 64)
ITERS = 16


def points():
    """(footprint, stride, warps, k) in the order they run: the main sweep (K = 1, 4, 16), then
    K = 2, 8 on three strides."""
    out = []
    for fp in ("l2", "dram"):
        for k in (1, 4, 16):
            for s in STRIDES:
                for w in WARPS:
                    if k == 16 and w > 32:  # 56 registers a thread: 64 warps do not fit
                        continue
                    out.append((fp, s, w, k))
    for fp in ("l2", "dram"):
        for k in (2, 8):
            for s in (4, 128, 4096):
                for w in (1, 4, 8, 16, 32, 64):
                    out.append((fp, s, w, k))
    return out


def geometry(w):
    """(CTAs, threads per CTA) for w warps per SM on every SM."""
    return (SMS * 2, 1024) if w == 64 else (SMS, 32 * w)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=100.0, help="seconds for the grid")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--carveout", action="store_true", help="also the `carveout` item")
    a = ap.parse_args(argv)
    import cupy as cp
    import numpy as np

    mod = cp.RawModule(path=a.cubin)
    props = cp.cuda.runtime.getDeviceProperties(0)
    res = ResultsFile(a.out, device_info(props), iters=ITERS, sms=SMS,
                      layout="byte ((r&(P-1))*32 + (r>>log2P)*32*S + lane*S) & mask, r = (round*K+j)*warps_in_grid + warp")
    buf = cp.zeros(4096 * MIB // 4, dtype=cp.int32)  # zeros: the dependence adds 0
    flush_buf = cp.zeros(256 * MIB, dtype=cp.uint8)
    cyc = cp.zeros(SMS * 2, dtype=cp.int64)
    sink = cp.zeros(SMS * 2, dtype=cp.int32)
    stream = cp.cuda.get_current_stream()
    spin = mod.get_function("spin")
    kernels = {k: mod.get_function(f"strided_k{k}") for k in (1, 2, 4, 8, 16)}

    def flush():
        cp.cuda.runtime.memsetAsync(flush_buf.data.ptr, 0, flush_buf.nbytes, stream.ptr)

    def launch(fp, s, w, k, shared=0):
        grid, block = geometry(w)
        lstride = s.bit_length() - 1
        lphase = max(0, lstride - 5)
        mask = (16 * MIB if fp == "l2" else 4096 * MIB) - 1
        if shared > 48 * 1024:
            try:
                kernels[k].max_dynamic_shared_size_bytes = shared
            except Exception:  # older CuPy: the driver call itself (8 = MAX_DYNAMIC_SHARED_SIZE_BYTES)
                cp.cuda.driver.funcSetAttribute(kernels[k].ptr, 8, shared)
        kernels[k]((grid,), (block,), (buf, cyc, sink, np.int32(lstride), np.int32(lphase),
                                       np.uint64(mask), np.int32(ITERS)), shared_mem=shared)
        return grid

    def point(fp, s, w, k, shared=0):
        launch(fp, s, w, k, shared)  # warm: the L2 window's data, the code
        rows = []
        for _ in range(a.reps):
            if fp == "dram":
                flush()
            spin((1,), (1,), (np.int64(20000),))
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            e0.record()
            grid = launch(fp, s, w, k, shared)
            e1.record()
            e1.synchronize()
            c = cyc[:grid].get()
            rows.append((int(c.max()), float(np.median(c)), cp.cuda.get_elapsed_time(e0, e1) * 1e3))
        rows.sort()
        mid = rows[len(rows) // 2]
        return {"fp": fp, "stride": s, "warps": w, "k": k, "cycles_max": mid[0], "cycles_median": mid[1],
                "us": mid[2], "cycles_max_all": [r[0] for r in rows], **({"shared": shared} if shared else {})}

    def carveout():
        out = []
        for shared_kib in (0, 100, 160, 200):
            for p in (("l2", 4096, 8, 16), ("l2", 4096, 8, 4), ("l2", 4, 8, 16), ("dram", 4096, 8, 16)):
                try:
                    out.append(point(*p, shared=shared_kib * 1024))
                except Exception as e:  # noqa: BLE001 - recorded, the sweep goes on
                    out.append({"point": list(p), "shared": shared_kib * 1024, "error": repr(e)[-400:]})
        return out

    def clock():
        return sm_clock(cp, np, spin)

    res.item("clock", clock)
    grid_pts = []
    res.res["items"]["grid"] = grid_pts
    t_start = time.time()
    todo = points()
    for n, p in enumerate(todo):
        if time.time() - t_start > a.budget:
            res.res["items"]["grid_stopped_at"] = n
            break
        try:
            grid_pts.append(point(*p))
        except Exception as e:  # noqa: BLE001 - recorded, the sweep goes on
            grid_pts.append({"point": list(p), "error": repr(e)[-400:]})
        if n % 40 == 39:
            res.save()
    res.res["items"]["grid_seconds"] = round(time.time() - t_start, 1)
    res.item("clock_after", clock)
    if a.carveout:
        res.item("carveout", carveout)
    res.save()
    print("points", len(grid_pts), "of", len(todo), "in", round(time.time() - t_start, 1), "s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
